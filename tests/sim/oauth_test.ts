/** POST /oauth_token.do grants, bearer checks, expiry on the instance clock, and the 401 bodies. */
import { assert, assertEquals } from "../support/assert.ts";
import { withSim } from "../support/sim.ts";
import type { Simulator } from "../../src/sim/mod.ts";

const CLIENT = { clientId: "cid", clientSecret: "csecret" };

async function token(
  sim: Simulator,
  form: Record<string, string>,
  contentType = "application/x-www-form-urlencoded",
) {
  const res = await fetch(`${sim.url}/oauth_token.do`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: contentType.includes("json") ? JSON.stringify(form) : new URLSearchParams(form),
  });
  return { status: res.status, body: await res.json() };
}

async function bearerGet(sim: Simulator, accessToken: string) {
  const res = await fetch(`${sim.url}/api/now/table/sys_user?sysparm_limit=1`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return { status: res.status, body: await res.json() };
}

const DENIED = { error_description: "access_denied", error: "server_error" };

Deno.test("password grant returns access and refresh tokens; the same token while it is valid", async () => {
  await withSim({ oauthClients: [CLIENT] }, async (sim) => {
    const form = {
      grant_type: "password",
      client_id: "cid",
      client_secret: "csecret",
      username: "admin",
      password: "secret",
    };
    const first = await token(sim, form);
    assertEquals(first.status, 200);
    assertEquals([first.body.token_type, first.body.scope, first.body.expires_in], [
      "Bearer",
      "useraccount",
      1799,
    ]);
    assert(first.body.refresh_token, "refresh token");
    assertEquals((await bearerGet(sim, first.body.access_token)).status, 200);
    sim.clock.advance(600_000);
    const second = await token(sim, form);
    assertEquals([second.body.access_token, second.body.expires_in], [first.body.access_token, 1199]);
    assertEquals(sim.journal.last()!.principal, "admin");
  });
});

Deno.test("tokens expire on the instance clock; refresh_token grant issues a new access token", async () => {
  await withSim({ oauthClients: [CLIENT] }, async (sim) => {
    const first = await token(sim, {
      grant_type: "password",
      client_id: "cid",
      client_secret: "csecret",
      username: "admin",
      password: "secret",
    });
    sim.clock.advance(1800_000);
    const expired = await bearerGet(sim, first.body.access_token);
    assertEquals(expired, {
      status: 401,
      body: {
        error: { message: "User Not Authenticated", detail: "Required to provide Auth information" },
        status: "failure",
      },
    });
    const refreshed = await token(sim, {
      grant_type: "refresh_token",
      client_id: "cid",
      client_secret: "csecret",
      refresh_token: first.body.refresh_token,
    });
    assertEquals(refreshed.status, 200);
    assert(refreshed.body.access_token !== first.body.access_token, "a new access token");
    assertEquals((await bearerGet(sim, refreshed.body.access_token)).status, 200);
  });
});

Deno.test("client_credentials acts as the application user and has no refresh token", async () => {
  await withSim(
    { oauthClients: [CLIENT, { clientId: "nocc", clientSecret: "s", applicationUser: null }] },
    async (sim) => {
      const cc = await token(sim, {
        grant_type: "client_credentials",
        client_id: "cid",
        client_secret: "csecret",
      });
      assertEquals([cc.status, "refresh_token" in cc.body], [200, false]);
      assertEquals((await bearerGet(sim, cc.body.access_token)).status, 200);
      assertEquals(sim.journal.last()!.principal, "admin");
      assertEquals(sim.journal.last()!.clientId, "cid");
      assertEquals(
        await token(sim, { grant_type: "client_credentials", client_id: "nocc", client_secret: "s" }),
        { status: 401, body: DENIED },
      );
    },
  );
});

Deno.test("bad secrets, bad users, unknown grants and JSON bodies are 401 access_denied", async () => {
  await withSim({ oauthClients: [CLIENT] }, async (sim) => {
    const cases: Array<Record<string, string>> = [
      { grant_type: "client_credentials", client_id: "cid", client_secret: "wrong" },
      {
        grant_type: "password",
        client_id: "cid",
        client_secret: "csecret",
        username: "admin",
        password: "wrong",
      },
      { grant_type: "refresh_token", client_id: "cid", client_secret: "csecret", refresh_token: "nope" },
      { grant_type: "authorization_code", client_id: "cid", client_secret: "csecret" },
    ];
    for (const form of cases) {
      assertEquals(await token(sim, form), { status: 401, body: DENIED }, form.grant_type);
    }
    assertEquals(
      await token(
        sim,
        { grant_type: "client_credentials", client_id: "cid", client_secret: "csecret" },
        "application/json",
      ),
      { status: 401, body: DENIED },
    );
    assertEquals((await bearerGet(sim, "made-up-token")).status, 401);
    // The journal names the user, never the secret.
    assert(!JSON.stringify(sim.journal.entries()).includes("csecret"), "secret in journal");
  });
});
