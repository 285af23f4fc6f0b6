/**
 * The HTTP client for registry calls: Deno's default client unless `schema.registry.ssl.*` names a trust store
 * or key store. JKS and PKCS12 stores are read with the instance client's loader (src/instance/tls/keystore.ts);
 * PEM stores are files of PEM blocks (a key store holds the certificate chain and the private key).
 *
 * Loading is asynchronous, so it happens on the first registry call, not in `configure`.
 */
import { ConfigException } from "../../errors.ts";
import { loadStore } from "../../../instance/tls/keystore.ts";
import { registerSecret } from "../../../observability/redact.ts";
import type { StoreSettings } from "./registry_client_settings.ts";

type Role = "truststore" | "keystore";

interface Material {
  certificates: string[];
  privateKey: string | null;
}

async function readPem(store: StoreSettings, role: Role): Promise<Material> {
  let text: string;
  try {
    text = await Deno.readTextFile(store.location);
  } catch (error) {
    throw new ConfigException(
      `schema.registry.ssl.${role}.location cannot be read (${store.location}): ${(error as Error).message}`,
    );
  }
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const privateKey =
    text.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----/)?.[0] ??
      null;
  registerSecret(privateKey);
  return { certificates: certificates.map((c) => `${c}\n`), privateKey };
}

async function readStore(store: StoreSettings, role: Role): Promise<Material> {
  if (store.type === "PEM") return await readPem(store, role);
  if (store.type !== "JKS" && store.type !== "PKCS12") {
    throw ConfigException.invalidValue(
      `schema.registry.ssl.${role}.type`,
      store.type,
      "use JKS, PKCS12 or PEM",
    );
  }
  try {
    return await loadStore(
      { path: store.location, password: store.password, type: store.type as "JKS" | "PKCS12" },
      role,
    );
  } catch (error) {
    // The loader names the instance's properties; name ours instead.
    const message = (error as Error).message.replaceAll(
      `svc.tls.${role}.path`,
      `schema.registry.ssl.${role}.location`,
    )
      .replaceAll(`svc.tls.${role}`, `schema.registry.ssl.${role}`);
    throw new ConfigException(message, { cause: error });
  }
}

/** A client honouring the stores, or null when neither is configured (the default client then applies). */
export async function createRegistryHttpClient(
  truststore: StoreSettings | null,
  keystore: StoreSettings | null,
): Promise<Deno.HttpClient | null> {
  if (truststore === null && keystore === null) return null;
  const options: Deno.CreateHttpClientOptions & Partial<Deno.TlsCertifiedKeyPem> = {};
  if (truststore !== null) options.caCerts = (await readStore(truststore, "truststore")).certificates;
  if (keystore !== null) {
    const material = await readStore(keystore, "keystore");
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
