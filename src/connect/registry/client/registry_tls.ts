/**
 * The HTTP client for registry calls: Deno's default client unless `schema.registry.ssl.*` names a trust store
 * or key store: JKS, PKCS12 or PEM (a key store holds the certificate chain and the private key), read by the
 * shared store reader (src/common/keystore.ts).
 *
 * Loading is asynchronous, so it happens on the first registry call, not in `configure`.
 */
import { ConfigException } from "../../errors.ts";
import { addStores, createTlsHttpClient, type StoreFile, type StoreRole } from "../../../common/keystore.ts";
import type { RegistryClientSettings, StoreSettings } from "./registry_client_settings.ts";

function storeFile(store: StoreSettings | null, role: StoreRole): StoreFile | null {
  if (store === null) return null;
  if (store.type !== "JKS" && store.type !== "PKCS12" && store.type !== "PEM") {
    throw ConfigException.invalidValue(
      `schema.registry.ssl.${role}.type`,
      store.type,
      "use JKS, PKCS12 or PEM",
    );
  }
  return { ...store, type: store.type };
}

/** A client honouring the stores, or null when neither is configured (the default client then applies). */
export async function createRegistryHttpClient(
  settings: RegistryClientSettings,
): Promise<Deno.HttpClient | null> {
  const stores = {
    truststore: storeFile(settings.truststore, "truststore"),
    keystore: storeFile(settings.keystore, "keystore"),
  };
  if (stores.truststore === null && stores.keystore === null) return null;
  const options = await addStores({}, stores, (role) => ({
    prefix: `schema.registry.ssl.${role}`,
    pathKey: "location",
    error: (message) => new ConfigException(message),
  }));
  return createTlsHttpClient(options, (message) => new ConfigException(`schema registry ${message}`));
}
