/**
 * An HTML page (hibernating instance, login or SSO page) answered with 200 is never a result: a list, a get, a
 * create, an update, a delete and a batch all fail retriably with one message, and nothing counts as done.
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { BatchWriter } from "../../src/instance/batch_writer.ts";
import { HTML_PAGE_MESSAGE, InstanceHtmlPageError, isHtmlPage } from "../../src/instance/html_page.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { testSettings } from "./_helpers.ts";

Deno.test("isHtmlPage: by content type, or by a body that starts as HTML; JSON is not", () => {
  assert(isHtmlPage("text/html;charset=UTF-8", "{}"));
  assert(isHtmlPage(null, "\n<!DOCTYPE html><html></html>"));
  assert(isHtmlPage("", "<html lang=en>"));
  assert(!isHtmlPage("application/json", '{"result":[]}'));
});

for (const page of ["hibernating", "login"] as const) {
  Deno.test(`a ${page} page on every call is a retriable InstanceHtmlPageError, never a result`, async () => {
    const sim = await startSimulator({ users: ["admin:secret"], seed: { incident: 2 } });
    const client = await TableClient.create(
      testSettings(sim.url, { auth: { type: "basic", username: "admin", password: "secret" } }),
    );
    try {
      const [id] = sim.table("incident").sysIds();
      sim.faults.add({ fault: { kind: "html_page", page } });
      const calls: Array<[string, () => Promise<unknown>]> = [
        ["list", () => client.list("incident", { query: "", limit: 10 })],
        ["get", () => client.get("incident", id)],
        ["create", () => client.create("incident", { short_description: "x" })],
        ["update", () => client.update("incident", id, { short_description: "x" })],
        ["delete", () => client.delete("incident", id)],
        [
          "batch",
          () =>
            new BatchWriter(client.http, { maxRecords: 2, maxConcurrentBatches: 1 }).delete("incident", id),
        ],
      ];
      for (const [name, call] of calls) {
        const error = await assertRejects(call, InstanceHtmlPageError, HTML_PAGE_MESSAGE);
        assert(error instanceof InstanceHtmlPageError, name);
      }
      assertEquals(sim.table("incident").count, 2);
    } finally {
      client.close();
      await sim.stop();
    }
  });
}

Deno.test("a login page answering the OAuth token request is a retriable InstanceHtmlPageError", async () => {
  const sim = await startSimulator({
    users: ["admin:secret"],
    oauthClients: ["cid:csecret"],
    seed: { incident: 1 },
  });
  const client = await TableClient.create(
    testSettings(sim.url, {
      auth: {
        type: "oauth2",
        grantType: "client_credentials",
        tokenUrl: null,
        clientId: "cid",
        clientSecret: "csecret",
        scope: null,
        username: null,
        password: null,
      },
    }),
  );
  try {
    sim.faults.add({ route: "POST /oauth_token.do", fault: { kind: "html_page", page: "login" } });
    await assertRejects(
      () => client.get("incident", sim.table("incident").sysIds()[0]),
      InstanceHtmlPageError,
    );
  } finally {
    client.close();
    await sim.stop();
  }
});
