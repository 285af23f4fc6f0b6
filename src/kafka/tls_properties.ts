/**
 * TLS options from Java client / librdkafka style properties. PEM only.
 *
 * Trust (first that is set wins):
 *  - `ssl.truststore.certificates`: inline PEM (Java KIP-651, with `ssl.truststore.type=PEM`)
 *  - `ssl.truststore.location`: a PEM file of CA certificates (must be PEM whatever `ssl.truststore.type` says)
 *  - `ssl.ca.location`: a PEM file (librdkafka's name)
 *  - none: the runtime's default roots
 * Client certificate (mutual TLS):
 *  - `ssl.keystore.certificate.chain` + `ssl.keystore.key`: inline PEM (KIP-651)
 *  - `ssl.keystore.location`: one PEM file holding the private key and the certificate chain
 *  - `ssl.certificate.location` + `ssl.key.location`: two PEM files (librdkafka's names)
 *  - `ssl.key.password`: passphrase of an encrypted key (registered as a secret)
 * `ssl.endpoint.identification.algorithm=` (empty) turns hostname verification off, as in Java.
 *
 * JKS and PKCS#12 stores are rejected with the conversion to use; reading them needs node-forge/jks-js, which is
 * a reasonable later addition but not needed by any deployment yet.
 */
import { registerSecret } from "../observability/redact.ts";
import { KafkaConfigError } from "./errors.ts";
import type { TlsOptions } from "./types.ts";

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const PRIVATE_KEY_BLOCK =
  /-----BEGIN (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----/;

export async function tlsOptionsFromProperties(props: Record<string, string>): Promise<TlsOptions> {
  const get = (key: string): string | undefined => {
    const v = props[key];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const tls: TlsOptions = {};

  const inlineTrust = get("ssl.truststore.certificates");
  const trustFileKey = get("ssl.truststore.location") !== undefined
    ? "ssl.truststore.location"
    : get("ssl.ca.location") !== undefined
    ? "ssl.ca.location"
    : undefined;
  if (inlineTrust !== undefined) {
    tls.ca = certificatesIn("ssl.truststore.certificates", inlineTrust);
  } else if (trustFileKey !== undefined) {
    tls.ca = certificatesIn(trustFileKey, await readPem(trustFileKey, get(trustFileKey)!));
  }

  const keyPassword = props["ssl.key.password"];
  if (keyPassword) {
    registerSecret(keyPassword);
    registerSecret(JSON.stringify(keyPassword).slice(1, -1)); // its form inside a JSON log line
    tls.passphrase = keyPassword;
  }

  const inlineChain = get("ssl.keystore.certificate.chain");
  const inlineKey = props["ssl.keystore.key"];
  if (inlineKey) registerSecret(inlineKey.trim());
  if (inlineChain !== undefined || inlineKey) {
    if (inlineChain === undefined || !inlineKey) {
      throw new KafkaConfigError(
        "ssl.keystore.key",
        "and ssl.keystore.certificate.chain must be set together",
      );
    }
    tls.cert = certificatesIn("ssl.keystore.certificate.chain", inlineChain).join("\n");
    tls.key = privateKeyIn("ssl.keystore.key", inlineKey);
  } else if (get("ssl.keystore.location") !== undefined) {
    const pem = await readPem("ssl.keystore.location", get("ssl.keystore.location")!);
    tls.cert = certificatesIn("ssl.keystore.location", pem).join("\n");
    tls.key = privateKeyIn("ssl.keystore.location", pem);
  } else if (get("ssl.certificate.location") !== undefined || get("ssl.key.location") !== undefined) {
    const certPath = get("ssl.certificate.location");
    const keyPath = get("ssl.key.location");
    if (certPath === undefined || keyPath === undefined) {
      throw new KafkaConfigError("ssl.key.location", "and ssl.certificate.location must be set together");
    }
    tls.cert = certificatesIn("ssl.certificate.location", await readPem("ssl.certificate.location", certPath))
      .join("\n");
    tls.key = privateKeyIn("ssl.key.location", await readPem("ssl.key.location", keyPath));
  }

  const identification = props["ssl.endpoint.identification.algorithm"];
  if (identification !== undefined) {
    const v = identification.trim().toLowerCase();
    if (v === "") tls.checkServerIdentity = false;
    else if (v !== "https") {
      throw new KafkaConfigError(
        "ssl.endpoint.identification.algorithm",
        `"${identification}" is not https or empty`,
      );
    }
  }
  return tls;
}

async function readPem(key: string, path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    throw new KafkaConfigError(key, `cannot read ${path}: ${(e as Error).message}`);
  }
  const text = new TextDecoder().decode(bytes);
  if (!text.includes("-----BEGIN ")) {
    throw new KafkaConfigError(
      key,
      `${path} is not PEM; JKS/PKCS12 stores are not supported: convert with ` +
        "`keytool -exportcert -rfc` (truststore) or `openssl pkcs12 -nodes` (keystore) and set the type to PEM",
    );
  }
  return text;
}

function certificatesIn(key: string, pem: string): string[] {
  const certs = pem.match(CERTIFICATE_BLOCK) ?? [];
  if (certs.length === 0) throw new KafkaConfigError(key, "contains no PEM certificate");
  return certs;
}

function privateKeyIn(key: string, pem: string): string {
  const match = pem.match(PRIVATE_KEY_BLOCK);
  if (!match) throw new KafkaConfigError(key, "contains no PEM private key");
  return match[0];
}
