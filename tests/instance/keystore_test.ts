import forge from "node-forge";
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { loadStore } from "../../src/instance/tls/keystore.ts";
import { InstanceConfigError } from "../../src/instance/errors.ts";
import { tlsFixtures } from "../support/tls_fixtures.ts";

const commonName = (pem: string) => forge.pki.certificateFromPem(pem).subject.getField("CN").value as string;
const body = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, "");

for (const kind of ["P12", "Jks"] as const) {
  Deno.test(`keystore: ${kind} trust store yields the CA certificate`, async () => {
    const f = await tlsFixtures();
    const material = await loadStore(
      {
        path: kind === "P12" ? f.truststoreP12 : f.truststoreJks,
        password: f.password,
        type: kind === "P12" ? "PKCS12" : "JKS",
      },
      "truststore",
    );
    assertEquals(material.certificates.map(body), [body(f.caPem)]);
    assertEquals(material.privateKey, null);
  });

  Deno.test(`keystore: ${kind} key store yields the client key and its chain, leaf first`, async () => {
    const f = await tlsFixtures();
    const material = await loadStore(
      {
        path: kind === "P12" ? f.keystoreP12 : f.keystoreJks,
        password: f.password,
        type: kind === "P12" ? "PKCS12" : "JKS",
      },
      "keystore",
    );
    assertEquals(material.certificates.map(commonName), [f.clientCommonName, "tablesync test CA"]);
    assert(/-----BEGIN (RSA )?PRIVATE KEY-----/.test(material.privateKey ?? ""));
    // The key matches the leaf certificate.
    const key = forge.pki.privateKeyFromPem(material.privateKey!) as forge.pki.rsa.PrivateKey;
    const cert = forge.pki.certificateFromPem(material.certificates[0]).publicKey as forge.pki.rsa.PublicKey;
    assertEquals(key.n.toString(16), cert.n.toString(16));
  });
}

Deno.test("keystore: the file's format wins over a wrong declared type (as Java does)", async () => {
  const f = await tlsFixtures();
  const material = await loadStore(
    { path: f.truststoreJks, password: f.password, type: "PKCS12" },
    "truststore",
  );
  assertEquals(material.certificates.length, 1);
});

Deno.test("keystore: a wrong password is a configuration error naming the property, not the password", async () => {
  const f = await tlsFixtures();
  for (const path of [f.keystoreP12, f.keystoreJks]) {
    const error = await assertRejects(
      () => loadStore({ path, password: "wrong-Password-1", type: "PKCS12" }, "keystore"),
      InstanceConfigError,
      "svc.tls.keystore.password",
    );
    assert(!error.message.includes("wrong-Password-1"), error.message);
  }
});

Deno.test("keystore: missing file, and a key store without a key", async () => {
  const f = await tlsFixtures();
  await assertRejects(
    () => loadStore({ path: `${f.dir}/nope.p12`, password: f.password, type: "PKCS12" }, "truststore"),
    InstanceConfigError,
    "svc.tls.truststore.path cannot be read",
  );
  await assertRejects(
    () => loadStore({ path: f.truststoreP12, password: f.password, type: "PKCS12" }, "keystore"),
    InstanceConfigError,
    "holds no private key",
  );
});
