/** Every cross-field rule for a connector: the common ones (rules.ts), then its type's own. */
import type { Analysis } from "./analyze.ts";
import type { ConnectorType } from "./connector_class.ts";
import { applyCommonRules, type ConverterContext } from "./rules.ts";
import { applySourceRules } from "./source_rules.ts";
import { applySinkRules } from "./sink_rules.ts";

export function applyConnectorRules(a: Analysis, type: ConnectorType, ctx: ConverterContext): void {
  applyCommonRules(a);
  if (type === "source") applySourceRules(a, ctx);
  else applySinkRules(a);
}
