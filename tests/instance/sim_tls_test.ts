/** HTTPS to the simulator with custom CAs (PKCS12 and JKS trust stores) and mutual TLS (PKCS12 and JKS key stores). */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { InstanceConfigError } from "../../src/instance/errors.ts";
import type { StoreSettings } from "../../src/instance/settings.ts";
import { type TlsFixtures, tlsFixtures } from "../support/tls_fixtures.ts";
import { testSettings } from "./_helpers.ts";
import { capturingLogs } from "../support/logs.ts";

const USER = { userName: "integration", password: "sim-Password-79" };
const auth = { type: "basic" as const, username: USER.userName, password: USER.password };

async function simulator(f: TlsFixtures, mutual: boolean) {
  return await startSimulator({
    seed: { incident: 3 },
    users: [USER],
    tls: {
      cert: f.serverCertPem,
      key: f.serverKeyPem,
      ...(mutual ? { caForClientCerts: f.caPem, requireClientCert: true } : {}),
    },
  });
}

async function listWith(
  url: string,
  truststore: StoreSettings | null,
  keystore: StoreSettings | null = null,
) {
  const client = await TableClient.create(
    testSettings(url, { auth, tls: { truststore, keystore }, retry: { maxAttempts: 2 } }),
  );
  try {
    return await client.list("incident", { limit: 2, fields: ["sys_id"] });
  } finally {
    client.close();
  }
}

const store = (path: string, type: "JKS" | "PKCS12", password: string): StoreSettings => ({
  path,
  type,
  password,
});

Deno.test("tls: a custom CA from a PKCS12 trust store and from a JKS trust store", async () => {
  const f = await tlsFixtures();
  const sim = await simulator(f, false);
  try {
    assert(sim.url.startsWith("https://"));
    const localhost = sim.url.replace("127.0.0.1", "localhost");
    assertEquals((await listWith(sim.url, store(f.truststoreP12, "PKCS12", f.password))).rows.length, 2);
    assertEquals((await listWith(localhost, store(f.truststoreJks, "JKS", f.password))).rows.length, 2);
  } finally {
    await sim.stop();
  }
});

Deno.test("tls: a server certificate from an untrusted CA fails with a clear TLS error, without retrying", async () => {
  const f = await tlsFixtures();
  const sim = await simulator(f, false);
  try {
    for (const truststore of [store(f.otherTruststoreP12, "PKCS12", f.password), null]) {
      const error = await assertRejects(() => listWith(sim.url, truststore), InstanceConfigError);
      assert(
        error.message.includes("the server certificate is not signed by a trusted CA") &&
          error.message.includes("svc.tls.truststore.path"),
        error.message,
      );
    }
    assertEquals(sim.journal.entries().length, 0, "no request got through");
  } finally {
    await sim.stop();
  }
});

Deno.test("mtls: client certificate from a PKCS12 key store and from a JKS key store", async () => {
  const f = await tlsFixtures();
  const sim = await simulator(f, true);
  try {
    const trust = store(f.truststoreP12, "PKCS12", f.password);
    assertEquals((await listWith(sim.url, trust, store(f.keystoreP12, "PKCS12", f.password))).rows.length, 2);
    assertEquals((await listWith(sim.url, trust, store(f.keystoreJks, "JKS", f.password))).rows.length, 2);
    assertEquals(sim.journal.entries().length, 2);
  } finally {
    await sim.stop();
  }
});

Deno.test("mtls: without a client certificate the server refuses the handshake", async () => {
  const f = await tlsFixtures();
  const sim = await simulator(f, true);
  try {
    const { result: error } = await capturingLogs(() =>
      assertRejects(
        () => listWith(sim.url, store(f.truststoreP12, "PKCS12", f.password)),
        InstanceConfigError,
      )
    );
    assert(error.message.includes("the server refused the client certificate"), error.message);
    assertEquals(sim.journal.entries().length, 0);
  } finally {
    await sim.stop();
  }
});

Deno.test("tls: a wrong key store password is a configuration error before any request", async () => {
  const f = await tlsFixtures();
  await assertRejects(
    () =>
      listWith(
        "https://127.0.0.1:1",
        store(f.truststoreP12, "PKCS12", f.password),
        store(f.keystoreJks, "JKS", "nope-nope"),
      ),
    InstanceConfigError,
    "svc.tls.keystore.password",
  );
});
