/** Basic and OAuth (client credentials, password) against the simulator; no secret ever reaches the output. */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { InstanceHttpError } from "../../src/instance/errors.ts";
import { clearTokenCache } from "../../src/instance/auth/oauth.ts";
import type { OAuthSettings } from "../../src/instance/settings.ts";
import { setLogLevel } from "../../src/observability/log.ts";
import { testSettings } from "./_helpers.ts";
import { capturingLogs } from "../support/logs.ts";

const USER = { userName: "integration", password: "sim-Password-82" };
const CLIENT = {
  clientId: "tablesync-client",
  clientSecret: "client-Secret-83",
  accessTokenLifespanSeconds: 1800,
};
const SECRETS = [USER.password, CLIENT.clientSecret, "wrong-Password-84"];

function oauth(grantType: OAuthSettings["grantType"]): OAuthSettings {
  return {
    type: "oauth2",
    grantType,
    tokenUrl: null,
    clientId: CLIENT.clientId,
    clientSecret: CLIENT.clientSecret,
    scope: null,
    username: grantType === "password" ? USER.userName : null,
    password: grantType === "password" ? USER.password : null,
  };
}

/** Runs `fn` with debug logging captured, then checks that no secret or bearer token appears in any line. */
async function noSecretsLogged(fn: () => Promise<void>) {
  setLogLevel("debug");
  try {
    const { lines } = await capturingLogs(fn);
    const text = lines.join("");
    for (const secret of SECRETS) assert(!text.includes(secret), "a secret reached the logs");
    assert(!/bearer\s+(?!\[hidden\])[A-Za-z0-9._~+/-]{8,}/i.test(text), "a bearer token reached the logs");
    assert(!/basic\s+(?!\[hidden\])[A-Za-z0-9+/]{8,}/i.test(text), "basic credentials reached the logs");
  } finally {
    setLogLevel("info");
  }
}

async function simulator(lifespanSeconds = 1800) {
  return await startSimulator({
    seed: { incident: 3 },
    users: [USER],
    oauthClients: [{
      ...CLIENT,
      accessTokenLifespanSeconds: lifespanSeconds,
      applicationUser: USER.userName,
    }],
  });
}

Deno.test("auth: basic on every request; a wrong password is a 401 error that does not echo it", async () => {
  const sim = await simulator();
  try {
    await noSecretsLogged(async () => {
      const good = await TableClient.create(
        testSettings(sim.url, { auth: { type: "basic", username: USER.userName, password: USER.password } }),
      );
      await good.list("incident", { limit: 1 });
      await good.get("incident", sim.table("incident").sysIds()[0]);
      good.close();
      assertEquals(sim.journal.entries().map((e) => [e.authKind, e.principal, e.status]), [
        ["basic", USER.userName, 200],
        ["basic", USER.userName, 200],
      ]);
      const bad = await TableClient.create(
        testSettings(sim.url, {
          auth: { type: "basic", username: USER.userName, password: "wrong-Password-84" },
        }),
      );
      const error = await assertRejects(
        () => bad.list("incident", { limit: 1 }),
        InstanceHttpError,
      ) as InstanceHttpError;
      bad.close();
      assertEquals(error.status, 401);
      for (const secret of SECRETS) assert(!error.message.includes(secret));
    });
  } finally {
    await sim.stop();
  }
});

for (const grant of ["client_credentials", "password"] as const) {
  Deno.test(`auth: OAuth ${grant} grant; one token serves many requests`, async () => {
    clearTokenCache();
    const sim = await simulator();
    try {
      await noSecretsLogged(async () => {
        const client = await TableClient.create(testSettings(sim.url, { auth: oauth(grant) }));
        await Promise.all([1, 2, 3, 4].map(() => client.list("incident", { limit: 1 })));
        client.close();
      });
      const tokenRequests = sim.journal.find({ route: "POST /oauth_token.do" });
      assertEquals(tokenRequests.map((e) => [e.status, e.clientId]), [[200, CLIENT.clientId]]);
      const api = sim.journal.find({ route: "GET /api/now/table/incident" });
      assertEquals(
        api.map((e) => [e.authKind, e.principal, e.status]),
        Array(4).fill(["bearer", USER.userName, 200]),
      );
    } finally {
      await sim.stop();
    }
  });
}

Deno.test("auth: tokens are refreshed before they expire", async () => {
  clearTokenCache();
  const sim = await simulator(3); // expires_in 2
  try {
    await noSecretsLogged(async () => {
      const client = await TableClient.create(testSettings(sim.url, { auth: oauth("client_credentials") }));
      for (let i = 0; i < 12; i++) {
        await client.list("incident", { limit: 1 });
        await new Promise((r) => setTimeout(r, 400));
      }
      client.close();
    });
    const api = sim.journal.find({ route: "GET /api/now/table/incident" });
    const tokens = sim.journal.find({ route: "POST /oauth_token.do" });
    console.log(
      `12 requests over ~5 s with a 3 s token: ${tokens.length} token requests, statuses ${[
        ...new Set(api.map((e) => e.status)),
      ]}`,
    );
    assert(tokens.length >= 2, `token refreshed (${tokens.length} token requests)`);
    assertEquals(api.filter((e) => e.status === 200).length, 12);
    assert(
      api.filter((e) => e.status === 401).length <= 1,
      "expiry handled before the instance refuses the token",
    );
  } finally {
    await sim.stop();
  }
});

Deno.test("auth: a revoked token gets one fresh token and one resend", async () => {
  clearTokenCache();
  const sim = await simulator();
  try {
    await noSecretsLogged(async () => {
      const client = await TableClient.create(testSettings(sim.url, { auth: oauth("client_credentials") }));
      await client.list("incident", { limit: 1 });
      sim.oauthClients.revokeAllTokens();
      const page = await client.list("incident", { limit: 1 });
      assertEquals(page.rows.length, 1);
      client.close();
    });
    assertEquals(sim.journal.find({ route: "GET /api/now/table/incident" }).map((e) => e.status), [
      200,
      401,
      200,
    ]);
    assertEquals(sim.journal.find({ route: "POST /oauth_token.do" }).length, 2);
  } finally {
    await sim.stop();
  }
});

Deno.test("auth: a wrong client secret fails with the token endpoint's 401, naming the settings", async () => {
  clearTokenCache();
  const sim = await simulator();
  try {
    await noSecretsLogged(async () => {
      const client = await TableClient.create(
        testSettings(sim.url, {
          auth: { ...oauth("client_credentials"), clientSecret: "wrong-Password-84" },
        }),
      );
      const error = await assertRejects(
        () => client.list("incident", { limit: 1 }),
        InstanceHttpError,
        "svc.oauth.client.secret",
      );
      assertEquals((error as InstanceHttpError).status, 401);
      client.close();
    });
    assertEquals(sim.journal.find({ route: "GET /api/now/table/incident" }).length, 0);
  } finally {
    await sim.stop();
  }
});
