/**
 * The instance client's trust and key stores (`svc.tls.truststore.*`, `svc.tls.keystore.*`), read by the shared
 * store reader (src/common/keystore.ts); problems are `InstanceConfigError`s naming these properties.
 */
import { type KeyMaterial, readStore, type StoreNaming, type StoreRole } from "../../common/keystore.ts";
import { InstanceConfigError } from "../errors.ts";
import type { StoreSettings } from "../settings.ts";

export function instanceStoreNaming(role: StoreRole): StoreNaming {
  return { prefix: `svc.tls.${role}`, pathKey: "path", error: (message) => new InstanceConfigError(message) };
}

export function loadStore(store: StoreSettings, role: StoreRole): Promise<KeyMaterial> {
  return readStore(store, role, instanceStoreNaming(role));
}
