/**
 * TLS material generated at test time with openssl and keytool (Java 17) into a temp dir: a test CA, a server
 * certificate for localhost/127.0.0.1, a client certificate, an unrelated CA (for "wrong CA" tests), and the
 * same material as PKCS12 and JKS trust and key stores, as the instance client reads them in production.
 *
 * Generation takes a few seconds (keytool starts a JVM per call), so it happens once per test process:
 * `tlsFixtures()` memoises it. The store password is random per run and registered as a secret.
 */
import { registerSecret } from "../../src/observability/redact.ts";

export interface TlsFixtures {
  dir: string;
  /** PEM of the CA that signed the server and client certificates. */
  caPem: string;
  /** PEM of an unrelated CA. */
  otherCaPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** Password of every store below (also the key password). */
  password: string;
  truststoreP12: string;
  truststoreJks: string;
  /** A trust store holding only the unrelated CA. */
  otherTruststoreP12: string;
  keystoreP12: string;
  keystoreJks: string;
  /** Common name of the client certificate. */
  clientCommonName: string;
}

let generated: Promise<TlsFixtures> | null = null;

/** The fixtures of this test process, generated on first use. The temp dir is removed at process exit. */
export function tlsFixtures(): Promise<TlsFixtures> {
  generated ??= generate();
  return generated;
}

async function generate(): Promise<TlsFixtures> {
  const dir = await Deno.makeTempDir({ prefix: "tablesync-tls-" });
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // already gone
    }
  });
  const password = `pw-${crypto.randomUUID()}`;
  registerSecret(password);
  const at = (name: string) => `${dir}/${name}`;
  const clientCommonName = "tablesync-test-client";

  await makeCa(dir, "ca", "tablesync test CA");
  await makeCa(dir, "other-ca", "unrelated test CA");
  await makeLeaf(dir, "server", "localhost", "ca", [
    "subjectAltName=DNS:localhost,IP:127.0.0.1",
    "extendedKeyUsage=serverAuth",
  ]);
  await makeLeaf(dir, "client", clientCommonName, "ca", ["extendedKeyUsage=clientAuth"]);

  const pass = `pass:${password}`;
  await run("openssl", [
    "pkcs12",
    "-export",
    "-inkey",
    at("client.key"),
    "-in",
    at("client.pem"),
    "-certfile",
    at("ca.pem"),
    "-name",
    "client",
    "-out",
    at("keystore.p12"),
    "-passout",
    pass,
  ]);
  await run("keytool", [
    "-importkeystore",
    "-noprompt",
    "-srckeystore",
    at("keystore.p12"),
    "-srcstoretype",
    "PKCS12",
    "-srcstorepass",
    password,
    "-destkeystore",
    at("keystore.jks"),
    "-deststoretype",
    "JKS",
    "-deststorepass",
    password,
    "-destkeypass",
    password,
  ]);
  for (
    const [file, type, ca] of [
      ["truststore.p12", "PKCS12", "ca.pem"],
      ["truststore.jks", "JKS", "ca.pem"],
      ["other-truststore.p12", "PKCS12", "other-ca.pem"],
    ]
  ) {
    await run("keytool", [
      "-importcert",
      "-noprompt",
      "-alias",
      "ca",
      "-file",
      at(ca),
      "-keystore",
      at(file),
      "-storetype",
      type,
      "-storepass",
      password,
    ]);
  }
  const read = (name: string) => Deno.readTextFile(at(name));
  return {
    dir,
    caPem: await read("ca.pem"),
    otherCaPem: await read("other-ca.pem"),
    serverCertPem: await read("server.pem"),
    serverKeyPem: await read("server.key"),
    clientCertPem: await read("client.pem"),
    clientKeyPem: await read("client.key"),
    password,
    truststoreP12: at("truststore.p12"),
    truststoreJks: at("truststore.jks"),
    otherTruststoreP12: at("other-truststore.p12"),
    keystoreP12: at("keystore.p12"),
    keystoreJks: at("keystore.jks"),
    clientCommonName,
  };
}

async function makeCa(dir: string, name: string, commonName: string): Promise<void> {
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    `${dir}/${name}.key`,
    "-out",
    `${dir}/${name}.pem`,
    "-days",
    "3",
    "-subj",
    `/CN=${commonName}`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
}

async function makeLeaf(
  dir: string,
  name: string,
  commonName: string,
  ca: string,
  extensions: string[],
): Promise<void> {
  await Deno.writeTextFile(
    `${dir}/${name}.ext`,
    ["basicConstraints=CA:FALSE", ...extensions].join("\n") + "\n",
  );
  await run("openssl", [
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    `${dir}/${name}.key`,
    "-out",
    `${dir}/${name}.csr`,
    "-subj",
    `/CN=${commonName}`,
  ]);
  await run("openssl", [
    "x509",
    "-req",
    "-in",
    `${dir}/${name}.csr`,
    "-CA",
    `${dir}/${ca}.pem`,
    "-CAkey",
    `${dir}/${ca}.key`,
    "-CAcreateserial",
    "-out",
    `${dir}/${name}.pem`,
    "-days",
    "3",
    "-extfile",
    `${dir}/${name}.ext`,
  ]);
}

async function run(command: string, args: string[]): Promise<void> {
  const { code, stderr } = await new Deno.Command(command, { args, stdout: "null", stderr: "piped" })
    .output();
  if (code !== 0) {
    // Arguments may hold the store password; show only the command and its own error output (redacted by the caller's logger if any).
    throw new Error(
      `${command} ${args[0]} failed (exit ${code}): ${new TextDecoder().decode(stderr).slice(0, 500)}`,
    );
  }
}
