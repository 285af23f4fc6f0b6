/** Requests through an HTTP proxy: absolute-URI for http instances, CONNECT for https, with and without credentials. */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { InstanceConfigError } from "../../src/instance/errors.ts";
import type { ProxySettings } from "../../src/instance/settings.ts";
import { startConnectProxy } from "../support/connect_proxy.ts";
import { tlsFixtures } from "../support/tls_fixtures.ts";
import { testSettings } from "./_helpers.ts";

const USER = { userName: "integration", password: "sim-Password-80" };
const auth = { type: "basic" as const, username: USER.userName, password: USER.password };
const PROXY_PASSWORD = "proxy-Password-81";

async function listThrough(url: string, proxy: ProxySettings, tls = false) {
  const f = tls ? await tlsFixtures() : null;
  const client = await TableClient.create(testSettings(url, {
    auth,
    proxy,
    tls: { truststore: f ? { path: f.truststoreP12, password: f.password, type: "PKCS12" } : null },
    retry: { maxAttempts: 2 },
  }));
  try {
    return await client.list("incident", { limit: 2, fields: ["sys_id"] });
  } finally {
    client.close();
  }
}

Deno.test("proxy without credentials: http instance through absolute-URI requests", async () => {
  const sim = await startSimulator({ seed: { incident: 3 }, users: [USER] });
  const proxy = startConnectProxy();
  try {
    const page = await listThrough(sim.url, { url: proxy.url, username: null, password: null });
    assertEquals(page.rows.length, 2);
    assertEquals([proxy.forwarded, proxy.tunnels, sim.journal.entries().length], [1, 0, 1]);
    assertEquals(proxy.targets, [new URL(sim.url).host]);
  } finally {
    await proxy.close();
    await sim.stop();
  }
});

Deno.test("proxy with credentials: https instance through a CONNECT tunnel", async () => {
  const f = await tlsFixtures();
  const sim = await startSimulator({
    seed: { incident: 3 },
    users: [USER],
    tls: { cert: f.serverCertPem, key: f.serverKeyPem },
  });
  const proxy = startConnectProxy({ username: "proxy-user", password: PROXY_PASSWORD });
  try {
    const page = await listThrough(sim.url, {
      url: proxy.url,
      username: "proxy-user",
      password: PROXY_PASSWORD,
    }, true);
    assertEquals(page.rows.length, 2);
    assertEquals([proxy.tunnels, proxy.refused, sim.journal.entries().length], [1, 0, 1]);
  } finally {
    await proxy.close();
    await sim.stop();
  }
});

Deno.test("proxy with credentials: http instance", async () => {
  const sim = await startSimulator({ seed: { incident: 3 }, users: [USER] });
  const proxy = startConnectProxy({ username: "proxy-user", password: PROXY_PASSWORD });
  try {
    const page = await listThrough(sim.url, {
      url: proxy.url,
      username: "proxy-user",
      password: PROXY_PASSWORD,
    });
    assertEquals(page.rows.length, 2);
    assertEquals([proxy.forwarded, proxy.refused], [1, 0]);
  } finally {
    await proxy.close();
    await sim.stop();
  }
});

Deno.test("proxy refusing the credentials is a configuration error, for http and https", async () => {
  const f = await tlsFixtures();
  const plain = await startSimulator({ users: [USER] });
  const secure = await startSimulator({ users: [USER], tls: { cert: f.serverCertPem, key: f.serverKeyPem } });
  const proxy = startConnectProxy({ username: "proxy-user", password: PROXY_PASSWORD });
  const wrong = { url: proxy.url, username: "proxy-user", password: "not-the-Password" };
  try {
    for (const [url, tls] of [[plain.url, false], [secure.url, true]] as const) {
      const error = await assertRejects(() => listThrough(url, wrong, tls), InstanceConfigError);
      console.log(`wrong proxy password (${tls ? "https" : "http"}): ${error.message}`);
      assert(error.message.includes("svc.http.proxy"), error.message);
      assert(!error.message.includes("not-the-Password") && !error.message.includes(PROXY_PASSWORD));
    }
    assertEquals(proxy.refused, 2);
    assertEquals(plain.journal.entries().length + secure.journal.entries().length, 0);
  } finally {
    await proxy.close();
    await plain.stop();
    await secure.stop();
  }
});
