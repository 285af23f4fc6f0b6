/**
 * Key and trust stores (JKS, PKCS12, or a PEM file) turned into the PEM strings Deno.createHttpClient takes, for
 * both HTTP clients (the instance's `svc.tls.*`, the schema registry's `schema.registry.ssl.*`): messages name
 * the caller's properties and errors are the caller's class.
 *
 * The file's magic number decides the parser, as Java 9+ does for `keystore.type=JKS`: a PKCS12 file
 * declared JKS (or the reverse) still loads; only the mismatch is logged. JCEKS is refused with a clear
 * message. The key store password also unlocks the private key (spec, Authentication 6).
 */
import forge from "node-forge";
import jks from "jks-js";
import { Buffer } from "node:buffer";
import { logger } from "../observability/log.ts";
import { registerSecret } from "../observability/redact.ts";

const log = logger("tls");

/** A store file as configured. */
export interface StoreFile {
  readonly path: string;
  /** For a key store it also unlocks the private key. */
  readonly password: string | null;
  /** The file's magic number wins over JKS/PKCS12 when they disagree, as Java 9+ does. */
  readonly type: "JKS" | "PKCS12" | "PEM";
}

/** How messages name the store's settings, and the error class the caller's callers branch on. */
export interface StoreNaming {
  /** The property prefix, e.g. `svc.tls.truststore`. */
  readonly prefix: string;
  /** The name of the path property under the prefix (`path`, or the registry's `location`). */
  readonly pathKey: string;
  readonly error: (message: string) => Error;
}

export interface KeyMaterial {
  /** PEM certificates: for a trust store every trusted certificate; for a key store the chain, leaf first. */
  certificates: string[];
  /** PEM private key (key stores only). */
  privateKey: string | null;
}

export type StoreRole = "truststore" | "keystore";

type Format = "JKS" | "JCEKS" | "PKCS12";

export async function readStore(
  store: StoreFile,
  role: StoreRole,
  naming: StoreNaming,
): Promise<KeyMaterial> {
  registerSecret(store.password);
  const { prefix: property, pathKey } = naming;
  const fail = (message: string) => naming.error(message);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(store.path);
  } catch (error) {
    throw fail(`${property}.${pathKey} cannot be read (${store.path}): ${(error as Error).message}`);
  }
  if (store.type === "PEM") return readPem(new TextDecoder().decode(bytes));
  const format = sniff(bytes);
  if (format === "JCEKS") {
    throw fail(`${property}.${pathKey} is a JCEKS store; use JKS or PKCS12`);
  }
  if (format !== store.type) {
    log.info(
      { path: store.path, declared: store.type, actual: format },
      `${property}.type differs from the file; reading it as ${format}`,
    );
  }
  if (format === "JKS" && store.password === null) {
    throw fail(`${property}.password is required to read a JKS store`);
  }
  let material: KeyMaterial;
  try {
    material = format === "JKS"
      ? readJks(bytes, store.password!, role)
      : readPkcs12(bytes, store.password, role);
  } catch (error) {
    throw fail(
      `${property}.${pathKey} (${store.path}) cannot be opened as ${format} with ${property}.password: ${
        (error as Error).message
      }`,
    );
  }
  if (material.certificates.length === 0) {
    throw fail(`${property}.${pathKey} (${store.path}) holds no certificate`);
  }
  if (role === "keystore" && material.privateKey === null) {
    throw fail(`${property}.${pathKey} (${store.path}) holds no private key entry for mutual TLS`);
  }
  return material;
}

/** The TLS part of Deno.createHttpClient's options. */
export type TlsClientOptions = Deno.CreateHttpClientOptions & Partial<Deno.TlsCertifiedKeyPem>;

/** Adds the certificates of a trust store and the chain and key of a key store (either absent) to `options`. */
export async function addStores(
  options: TlsClientOptions,
  stores: { readonly truststore: StoreFile | null; readonly keystore: StoreFile | null },
  naming: (role: StoreRole) => StoreNaming,
): Promise<TlsClientOptions> {
  if (stores.truststore !== null) {
    options.caCerts = (await readStore(stores.truststore, "truststore", naming("truststore"))).certificates;
  }
  if (stores.keystore !== null) {
    const material = await readStore(stores.keystore, "keystore", naming("keystore"));
    options.cert = material.certificates.join("");
    options.key = material.privateKey!;
  }
  return options;
}

/**
 * Deno.createHttpClient; options it rejects (a malformed certificate or key) become
 * `error("TLS settings rejected: ...")`.
 */
export function createTlsHttpClient(
  options: TlsClientOptions,
  error: (message: string) => Error,
): Deno.HttpClient {
  try {
    return Deno.createHttpClient(options as Deno.CreateHttpClientOptions & Deno.TlsCertifiedKeyPem);
  } catch (cause) {
    throw error(`TLS settings rejected: ${(cause as Error).message}`);
  }
}

function sniff(bytes: Uint8Array): Format {
  const magic = bytes.length >= 4
    ? ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0
    : 0;
  if (magic === 0xfeedfeed) return "JKS";
  if (magic === 0xcececece) return "JCEKS";
  return "PKCS12";
}

/** A PEM file: every certificate, and for a key store the private key next to its chain. */
function readPem(text: string): KeyMaterial {
  const privateKey =
    text.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----/)?.[0] ?? null;
  registerSecret(privateKey);
  return { certificates: splitPem(text), privateKey };
}

function readJks(bytes: Uint8Array, password: string, role: StoreRole): KeyMaterial {
  const entries = jks.toPem(Buffer.from(bytes), password) as Record<
    string,
    { cert?: string; key?: string; ca?: string }
  >;
  const certificates: string[] = [];
  let privateKey: string | null = null;
  for (const [alias, entry] of Object.entries(entries)) {
    if (entry.key && entry.cert) {
      if (role === "keystore" && privateKey === null) {
        privateKey = entry.key;
        certificates.unshift(...splitPem(entry.cert));
        log.debug({ alias }, "client certificate from JKS key store");
      } else if (role === "truststore") {
        certificates.push(...splitPem(entry.cert));
      }
    } else if (entry.ca && role === "truststore") {
      certificates.push(...splitPem(entry.ca));
    }
  }
  if (privateKey) registerSecret(privateKey);
  return { certificates, privateKey };
}

function readPkcs12(bytes: Uint8Array, password: string | null, role: StoreRole): KeyMaterial {
  const der = forge.util.binary.raw.encode(bytes);
  const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der), false, password ?? "");
  const oids = forge.pki.oids;
  const keyBags = [
    ...(p12.getBags({ bagType: oids.pkcs8ShroudedKeyBag })[oids.pkcs8ShroudedKeyBag] ?? []),
    ...(p12.getBags({ bagType: oids.keyBag })[oids.keyBag] ?? []),
  ];
  const certBags = p12.getBags({ bagType: oids.certBag })[oids.certBag] ?? [];
  let privateKey: string | null = null;
  let keyId: string | null = null;
  if (role === "keystore" && keyBags.length > 0) {
    const bag = keyBags[0];
    // forge decodes RSA keys; for EC it leaves the PKCS#8 structure in bag.asn1.
    privateKey = bag.key ? forge.pki.privateKeyToPem(bag.key) : forge.pki.privateKeyInfoToPem(bag.asn1);
    keyId = bag.attributes?.localKeyId?.[0] ?? null;
    registerSecret(privateKey);
  }
  const certificates: Array<{ pem: string; leaf: boolean }> = certBags.map((bag: forge.pkcs12.Bag) => ({
    pem: bag.cert
      ? forge.pki.certificateToPem(bag.cert)
      : forge.pem.encode({ type: "CERTIFICATE", body: forge.asn1.toDer(bag.asn1).getBytes() }),
    leaf: keyId !== null && bag.attributes?.localKeyId?.[0] === keyId,
  }));
  // Deno wants the client chain leaf first.
  certificates.sort((a, b) => Number(b.leaf) - Number(a.leaf));
  return { certificates: certificates.map((c) => c.pem), privateKey };
}

function splitPem(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)?.map((pem) =>
    `${pem}\n`
  ) ?? [];
}
