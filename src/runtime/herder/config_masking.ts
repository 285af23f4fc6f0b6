/** Connector configs as the REST API shows them: literal secrets as [hidden], placeholders as written. */
import type { RawConfig } from "../../common/props.ts";
import { isSecretProperty } from "../../config/config_infos.ts";
import { hasPlaceholder } from "../../config/placeholders.ts";
import { staticDefs } from "../../config/catalog.ts";
import { HIDDEN } from "../../observability/redact.ts";

/** Every statically defined property of either connector kind, for deciding which values are secret. */
const PASSWORD_DEFS = new Map([...staticDefs("source"), ...staticDefs("sink")].map((d) => [d.name, d]));

function isSecretKey(key: string): boolean {
  return isSecretProperty(PASSWORD_DEFS.get(key), key);
}

/** Secret values are shown as [hidden] unless they are placeholders (which are not secrets themselves). */
export function shownConfig(config: RawConfig): RawConfig {
  const out: RawConfig = {};
  for (const [k, v] of Object.entries(config)) out[k] = isSecretKey(k) && !hasPlaceholder(v) ? HIDDEN : v;
  return out;
}

/** A config sent back with [hidden] values (as GET returned it) keeps the stored secrets. */
export function keepHiddenSecrets(next: RawConfig, previous: RawConfig): RawConfig {
  const out = { ...next };
  for (const [k, v] of Object.entries(out)) {
    if (v === HIDDEN && previous[k] !== undefined) out[k] = previous[k];
  }
  return out;
}
