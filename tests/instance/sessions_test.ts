/**
 * Sessions and the instance's own load signal, through real sockets against a small server that keeps sessions
 * and a semaphore as an instance does (_session_server.ts).
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { InstanceHttpClient } from "../../src/instance/http_client.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { InstanceRetriableError } from "../../src/instance/errors.ts";
import { instanceMetrics } from "../../src/instance/permit_registry.ts";
import { startSessionServer } from "./_session_server.ts";
import { testSettings } from "./_helpers.ts";

const auth = { type: "basic" as const, username: "integration", password: "sess-Pa55word" };

async function clientOf(url: string, max: number, retry = {}): Promise<InstanceHttpClient> {
  return await InstanceHttpClient.create(
    testSettings(url, { auth, http: { maxConcurrentRequests: max }, retry }),
  );
}

/** `loops` callers each making requests until `total` were made. */
async function load(client: InstanceHttpClient, loops: number, total: number): Promise<void> {
  let started = 0;
  await Promise.all(Array.from({ length: loops }, async () => {
    while (started++ < total) await client.request({ method: "GET", path: "/api/now/table/incident" });
  }));
}

Deno.test("sessions: a cookie jar per request in flight; sessions opened never above the permit limit", async () => {
  const server = startSessionServer({ workMs: 3 });
  const max = 4;
  const client = await clientOf(server.url, max);
  try {
    await load(client, 12, 300);
    console.log(`300 requests, 12 callers, ${max} permits: ${server.sessionsOpened} sessions opened`);
    assert(server.sessionsOpened <= max, `${server.sessionsOpened} sessions for ${max} permits`);
    assertEquals(server.maxPerSession, 1, "two requests in flight never share a session");
    assertEquals(server.cookies.filter((c) => c === null).length, server.sessionsOpened);
    // Every cookie the instance set goes back.
    const sent = server.cookies.find((c) => c !== null)!;
    for (
      const name of ["JSESSIONID=", "glide_session_store=", "glide_user_route=", "BIGipServerpool_test="]
    ) {
      assert(sent.includes(name), `${name} missing from ${sent}`);
    }
    const metrics = instanceMetrics().find((m) => m.host === client.address.host)!;
    assertEquals(metrics.sessionsOpened, server.sessionsOpened);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("sessions: a 401 drops the jar; its next request opens a new session", async () => {
  const server = startSessionServer();
  const client = await clientOf(server.url, 1);
  try {
    await load(client, 1, 2);
    assertEquals(server.sessionsOpened, 1);
    server.expire("S1");
    const denied = await client.request({ method: "GET", path: "/x" });
    assertEquals(denied.status, 401);
    await load(client, 1, 2);
    assertEquals(server.sessionsOpened, 2);
    assertEquals(server.cookies.slice(-3).map((c) => /JSESSIONID=(\w+)/.exec(c ?? "")?.[1] ?? null), [
      "S1",
      null,
      "S2",
    ]);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("sessions: when the instance rotates the session, the old cookies go", async () => {
  const server = startSessionServer({
    answer: (n) =>
      n === 2
        ? new Response('{"result":[]}', {
          headers: [["set-cookie", "JSESSIONID=R9; Path=/"], ["set-cookie", "glide_session_store=R9-store"]],
        })
        : null,
  });
  const client = await clientOf(server.url, 1);
  try {
    await load(client, 1, 3);
    assertEquals(server.cookies[2], "JSESSIONID=R9; glide_session_store=R9-store");
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("202 with an empty body is not done: a read is retried, never an empty page", async () => {
  const server = startSessionServer({ answer: (n) => n <= 2 ? new Response(null, { status: 202 }) : null });
  const table = new TableClient(await clientOf(server.url, 2));
  try {
    const page = await table.list("incident", { limit: 10 });
    assertEquals(page.rows, []);
    assertEquals(server.requests, 3, "two 202s, then the page");
    const metrics = instanceMetrics().find((m) => m.host === table.instance.host)!;
    assertEquals(metrics.notDone, 2);
    assertEquals(metrics.retries, 2);
  } finally {
    table.close();
    await server.close();
  }
});

Deno.test("202 with an empty body is not done: a create is sent again and written once", async () => {
  const server = startSessionServer({ answer: (n) => n === 1 ? new Response("  ", { status: 202 }) : null });
  const table = new TableClient(await clientOf(server.url, 2));
  try {
    const row = await table.create("incident", { short_description: "x" });
    assertEquals([row.sys_id, server.requests], ["row2", 2]);
  } finally {
    table.close();
    await server.close();
  }
});

Deno.test("202 with an empty body on every attempt: a retriable failure, not ambiguous, not a success", async () => {
  const server = startSessionServer({ answer: () => new Response(null, { status: 202 }) });
  const table = new TableClient(await clientOf(server.url, 2, { maxAttempts: 3 }));
  try {
    const error = await assertRejects(
      () => table.update("incident", "abc", { state: "2" }),
      InstanceRetriableError,
      "HTTP 202 with an empty body",
    );
    assertEquals([(error as InstanceRetriableError).attempts, server.requests], [3, 3]);
    await assertRejects(() => table.create("incident", {}), InstanceRetriableError, "not done");
  } finally {
    table.close();
    await server.close();
  }
});

Deno.test("semaphore waits shrink the limit; it never passes the max", async () => {
  // Two threads, sixteen permits: most requests queue for a thread and say so in Server-Timing.
  const server = startSessionServer({ threads: 2, workMs: 4 });
  const max = 16;
  const client = await clientOf(server.url, max);
  try {
    await load(client, 32, 400);
    const metrics = instanceMetrics().find((m) => m.host === client.address.host)!;
    console.log(
      `2 threads, ${max} permits: limit ${client.pool.limit} after 400 requests (lowest ${metrics.lowestLimit}, ` +
        `${metrics.limitDecreases} decreases, ${metrics.limitIncreases} increases)`,
    );
    assert(metrics.limitDecreases > 0 && client.pool.limit <= max / 2, `limit ${client.pool.limit}`);
    assert(metrics.peakInFlight <= max);
    assertEquals(metrics.sessionWaits, 0);
  } finally {
    client.close();
    await server.close();
  }
});
