/**
 * The HTTP client for registry calls: Deno's default client unless `schema.registry.ssl.*` names a trust store
 * or key store: JKS, PKCS12 or PEM (a key store holds the certificate chain and the private key), read by the
 * shared store reader (src/common/keystore.ts).
 *
 * Loading is asynchronous, so it happens on the first registry call, not in `configure`.
 */
import { ConfigException } from "../../errors.ts";
import { type KeyMaterial, readStore, type StoreRole } from "../../../common/keystore.ts";
import type { StoreSettings } from "./registry_client_settings.ts";

function readRegistryStore(store: StoreSettings, role: StoreRole): Promise<KeyMaterial> {
  if (store.type !== "JKS" && store.type !== "PKCS12" && store.type !== "PEM") {
    throw ConfigException.invalidValue(
      `schema.registry.ssl.${role}.type`,
      store.type,
      "use JKS, PKCS12 or PEM",
    );
  }
  return readStore({ path: store.location, password: store.password, type: store.type }, role, {
    prefix: `schema.registry.ssl.${role}`,
    pathKey: "location",
    error: (message) => new ConfigException(message),
  });
}

/** A client honouring the stores, or null when neither is configured (the default client then applies). */
export async function createRegistryHttpClient(
  truststore: StoreSettings | null,
  keystore: StoreSettings | null,
): Promise<Deno.HttpClient | null> {
  if (truststore === null && keystore === null) return null;
  const options: Deno.CreateHttpClientOptions & Partial<Deno.TlsCertifiedKeyPem> = {};
  if (truststore !== null) options.caCerts = (await readRegistryStore(truststore, "truststore")).certificates;
  if (keystore !== null) {
    const material = await readRegistryStore(keystore, "keystore");
    if (material.privateKey === null) {
      throw new ConfigException(
        `schema.registry.ssl.keystore.location (${keystore.location}) holds no private key`,
      );
    }
    options.cert = material.certificates.join("");
    options.key = material.privateKey;
  }
  try {
    return Deno.createHttpClient(options as Deno.CreateHttpClientOptions & Deno.TlsCertifiedKeyPem);
  } catch (error) {
    throw new ConfigException(`schema registry TLS settings rejected: ${(error as Error).message}`);
  }
}
