/** HTTP-level behaviour of the client against msw handlers (no sockets): retries, auth, limits, errors. */
import { setupServer } from "msw/node";
import { delay, http, HttpResponse } from "msw";
import { assert, assertEquals, assertMatch, assertRejects } from "../support/assert.ts";
import { InstanceHttpClient } from "../../src/instance/http_client.ts";
import {
  AmbiguousRequestError,
  InstanceConfigError,
  InstanceHttpError,
  InstanceRetriableError,
  ResponseTooLargeError,
} from "../../src/instance/errors.ts";
import { clearTokenCache } from "../../src/instance/auth/oauth.ts";
import { instanceMetrics } from "../../src/instance/permit_registry.ts";
import { VERSION } from "../../src/version.ts";
import { noConnectCheck, testSettings, uniqueHost } from "./_helpers.ts";
import { capturingLogs } from "../support/logs.ts";

const server = setupServer();
server.listen({ onUnhandledRequest: "error" });
globalThis.addEventListener("unload", () => server.close());

const PASSWORD = "basic-Pa55word-zz";

interface Harness {
  origin: string;
  client: InstanceHttpClient;
  waits: number[];
}

async function harness(
  overrides: Parameters<typeof testSettings>[1] = {},
  secure = true,
): Promise<Harness> {
  const origin = `${secure ? "https" : "http"}://${uniqueHost("msw")}`;
  const waits: number[] = [];
  const client = await InstanceHttpClient.create(
    testSettings(origin, { auth: { type: "basic", username: "admin", password: PASSWORD }, ...overrides }),
    { connector: noConnectCheck, sleep: (ms) => (waits.push(ms), Promise.resolve()), random: () => 0.5 },
  );
  return { origin, client, waits };
}

function test(name: string, fn: () => Promise<void>) {
  Deno.test(name, async () => {
    server.resetHandlers();
    clearTokenCache();
    await fn();
  });
}

test("sends basic auth, Accept, User-Agent with the version, and the query", async () => {
  const { origin, client } = await harness();
  let seen: Request | null = null;
  server.use(http.get(`${origin}/api/now/table/incident`, ({ request }) => {
    seen = request;
    return HttpResponse.json({ result: [] });
  }));
  const response = await client.request({
    method: "GET",
    path: "/api/now/table/incident",
    query: { sysparm_limit: "1" },
  });
  assertEquals(response.status, 200);
  const request = seen! as Request;
  assertEquals(request.headers.get("authorization"), `Basic ${btoa(`admin:${PASSWORD}`)}`);
  assertEquals(request.headers.get("accept"), "application/json");
  assertEquals(request.headers.get("user-agent"), `tablesync/${VERSION}`);
  assertEquals(new URL(request.url).searchParams.get("sysparm_limit"), "1");
});

test("retries 503, 429, 408, 425 and succeeds; waits follow the jittered, doubling backoff", async () => {
  const { origin, client, waits } = await harness({
    retry: { initialBackoffMs: 100, maxBackoffMs: 300, maxAttempts: 6 },
  });
  const statuses = [503, 429, 408, 425, 500];
  server.use(http.get(`${origin}/api/now/table/incident`, () => {
    const status = statuses.shift();
    return status ? new HttpResponse(null, { status }) : HttpResponse.json({ result: [] });
  }));
  const response = await client.request({ method: "GET", path: "/api/now/table/incident" });
  assertEquals([response.status, response.attempts], [200, 6]);
  // random() = 0.5: half of ceilings 100, 200, 300 (capped), 300, 300.
  assertEquals(waits, [50, 100, 150, 150, 150]);
});

test("gives up after max attempts with a retriable error naming the request, not its credentials", async () => {
  const { origin, client, waits } = await harness({ retry: { maxAttempts: 3 } });
  let calls = 0;
  server.use(http.get(`${origin}/api/now/table/incident`, () => {
    calls++;
    return HttpResponse.json({ error: { message: "down", detail: null }, status: "failure" }, {
      status: 503,
    });
  }));
  const error = await assertRejects(
    () =>
      client.request({
        method: "GET",
        path: "/api/now/table/incident",
        query: { sysparm_query: "secret=1" },
      }),
    InstanceRetriableError,
  ) as InstanceRetriableError;
  assertEquals([calls, waits.length, error.attempts, error.status, error.method, error.path], [
    3,
    2,
    3,
    503,
    "GET",
    "/api/now/table/incident",
  ]);
  assertMatch(error.message, /^GET \/api\/now\/table\/incident failed after 3 attempts \(last status 503\)/);
  assert(!error.message.includes(PASSWORD) && !error.message.includes("sysparm_query"), error.message);
  assert(error.message.includes("svc.retry.max.attempts (3) reached"), error.message);
});

test("stops when the next wait would pass max elapsed", async () => {
  const { origin, client, waits } = await harness({ retry: { maxElapsedMs: 1000, maxAttempts: 10 } });
  server.use(
    http.get(`${origin}/x`, () => new HttpResponse(null, { status: 429, headers: { "retry-after": "2" } })),
  );
  const error = await assertRejects(
    () => client.request({ method: "GET", path: "/x" }),
    InstanceRetriableError,
  );
  assertEquals(waits, []);
  assert(error.message.includes("would pass svc.retry.max.elapsed.ms (1000)"), error.message);
});

test("Retry-After (seconds or HTTP date) overrides the backoff", async () => {
  const { origin, client, waits } = await harness({ retry: { initialBackoffMs: 10, maxBackoffMs: 10 } });
  const date = new Date(Math.floor(Date.now() / 1000) * 1000);
  const responses = [
    new HttpResponse(null, { status: 429, headers: { "retry-after": "3" } }),
    new HttpResponse(null, {
      status: 503,
      headers: { "retry-after": new Date(date.getTime() + 7000).toUTCString(), date: date.toUTCString() },
    }),
  ];
  server.use(http.get(`${origin}/x`, () => responses.shift() ?? HttpResponse.json({ result: [] })));
  await client.request({ method: "GET", path: "/x" });
  assertEquals(waits, [3000, 7000]);
});

test("statuses outside the retryable set are returned at once", async () => {
  const { origin, client, waits } = await harness();
  let calls = 0;
  server.use(http.get(`${origin}/x`, () => (calls++, new HttpResponse("nope", { status: 400 }))));
  const response = await client.request({ method: "GET", path: "/x" });
  assertEquals([response.status, calls, waits.length], [400, 1, 0]);
});

test("a transient I/O error is retried for GET, but a POST with an unknown outcome is ambiguous", async () => {
  const { origin, client } = await harness();
  let gets = 0;
  let posts = 0;
  server.use(
    http.get(`${origin}/x`, () => (++gets === 1 ? HttpResponse.error() : HttpResponse.json({ result: [] }))),
    http.post(`${origin}/api/now/table/incident`, () => (posts++, HttpResponse.error())),
  );
  assertEquals((await client.request({ method: "GET", path: "/x" })).attempts, 2);
  const error = await assertRejects(
    () =>
      client.request({ method: "POST", path: "/api/now/table/incident", json: { short_description: "x" } }),
    AmbiguousRequestError,
    "POST /api/now/table/incident outcome unknown",
  );
  assertEquals([posts, (error as AmbiguousRequestError).attempts], [1, 1]);
});

test("a POST answered with a retryable status is retried (the instance said it did not do it)", async () => {
  const { origin, client } = await harness();
  const statuses = [503, 429];
  server.use(http.post(`${origin}/api/now/table/incident`, () => {
    const status = statuses.shift();
    return status
      ? new HttpResponse(null, { status })
      : HttpResponse.json({ result: { sys_id: "a" } }, { status: 201 });
  }));
  const response = await client.request({ method: "POST", path: "/api/now/table/incident", json: {} });
  assertEquals([response.status, response.attempts], [201, 3]);
});

test("a 429 halves the host's in-flight limit; without adaptive throttling it does not", async () => {
  for (const adaptive of [true, false]) {
    const { origin, client } = await harness({
      http: { adaptiveThrottling: adaptive, maxConcurrentRequests: 8 },
    });
    const statuses = [429, 429];
    server.use(http.get(`${origin}/x`, () => new HttpResponse(null, { status: statuses.shift() ?? 200 })));
    await client.request({ method: "GET", path: "/x" });
    assertEquals(client.pool.limit, adaptive ? 2 : 8);
    const metrics = instanceMetrics().find((m) => m.host === client.address.host)!;
    assertEquals(metrics.requestsByStatus, { "200": 1, "429": 2 });
    assertEquals(metrics.retries, 2);
  }
});

test("a response over the size limit fails fast, with or without Content-Length", async () => {
  const { origin, client } = await harness({ http: { maxResponseBytes: 1024 } });
  let pulled = 0;
  server.use(
    http.get(
      `${origin}/declared`,
      () => new HttpResponse("x".repeat(5000), { headers: { "content-length": "5000" } }),
    ),
    http.get(`${origin}/streamed`, () =>
      new HttpResponse(
        new ReadableStream({
          pull(controller) {
            pulled++;
            controller.enqueue(new Uint8Array(512));
            if (pulled > 1000) controller.close();
          },
        }),
      )),
  );
  await assertRejects(
    () => client.request({ method: "GET", path: "/declared" }),
    ResponseTooLargeError,
    "(1024 bytes",
  );
  const error = await assertRejects(
    () => client.request({ method: "GET", path: "/streamed" }),
    ResponseTooLargeError,
  );
  assert(pulled < 20, `stopped reading early (pulled ${pulled} chunks)`);
  assertEquals((error as ResponseTooLargeError).path, "/streamed");
});

test("waiting for a permit counts against the request timeout", async () => {
  const { origin, client } = await harness({
    http: { maxConcurrentRequests: 1, requestTimeoutMs: 80 },
    retry: { maxAttempts: 2 },
  });
  let calls = 0;
  server.use(http.get(`${origin}/x`, () => (calls++, HttpResponse.json({ result: [] }))));
  const held = client.pool.tryAcquire()!;
  try {
    const started = Date.now();
    await assertRejects(
      () => client.request({ method: "GET", path: "/x" }),
      InstanceRetriableError,
      "no request permit free within",
    );
    assert(Date.now() - started >= 2 * 75, "each attempt waited about the request timeout");
    assertEquals(calls, 0);
  } finally {
    held.release();
  }
});

test("no response headers within the request timeout: a GET is retried", async () => {
  const { origin, client } = await harness({ http: { requestTimeoutMs: 100 }, retry: { maxAttempts: 2 } });
  let calls = 0;
  server.use(http.get(`${origin}/slow`, async () => {
    calls++;
    await delay(calls === 1 ? 1000 : 0);
    return HttpResponse.json({ result: [] });
  }));
  const response = await client.request({ method: "GET", path: "/slow" });
  assertEquals([response.status, response.attempts, calls], [200, 2, 2]);
});

test("a proxy answering 407 is a configuration error", async () => {
  const { origin, client } = await harness({
    proxy: { url: "http://proxy.example.test:3128", username: "u", password: "proxy-Pw-123" },
  }, false);
  server.use(http.get(`${origin}/x`, () => new HttpResponse(null, { status: 407 })));
  await assertRejects(() => client.request({ method: "GET", path: "/x" }), InstanceConfigError, "HTTP 407");
});

// --- OAuth ------------------------------------------------------------------------------------------------

const CLIENT_SECRET = "client-Secret-abc";
const USER_PASSWORD = "user-Passw0rd-abc";

function oauth(grantType: "client_credentials" | "password", scope: string | null = null) {
  return {
    type: "oauth2" as const,
    grantType,
    tokenUrl: null,
    clientId: "client-1",
    clientSecret: CLIENT_SECRET,
    scope,
    username: grantType === "password" ? "integration" : null,
    password: grantType === "password" ? USER_PASSWORD : null,
  };
}

/** A token endpoint issuing tok-1, tok-2, … and an API accepting only the latest token. */
function tokenServer(origin: string, expiresIn = 1799) {
  const forms: URLSearchParams[] = [];
  const tokenRequests: Request[] = [];
  let current = "";
  server.use(
    http.post(`${origin}/oauth_token.do`, async ({ request }) => {
      tokenRequests.push(request.clone());
      forms.push(new URLSearchParams(await request.text()));
      current = `tok-${forms.length}-${crypto.randomUUID()}`;
      return HttpResponse.json({
        access_token: current,
        token_type: "Bearer",
        expires_in: expiresIn,
        scope: "useraccount",
      });
    }),
    http.get(
      `${origin}/api/now/table/incident`,
      ({ request }) =>
        request.headers.get("authorization") === `Bearer ${current}`
          ? HttpResponse.json({ result: [] })
          : HttpResponse.json({ error: { message: "User Not Authenticated" } }, { status: 401 }),
    ),
  );
  return { forms, tokenRequests, revoke: () => (current = "revoked") };
}

test("oauth client credentials: form-encoded, no scope unless set, token cached and shared", async () => {
  const { origin, client } = await harness({ auth: oauth("client_credentials") });
  const tokens = tokenServer(origin);
  const { lines } = await capturingLogs(async () => {
    await Promise.all(
      [1, 2, 3].map(() => client.request({ method: "GET", path: "/api/now/table/incident" })),
    );
    await client.request({ method: "GET", path: "/api/now/table/incident" });
  });
  assertEquals(tokens.forms.length, 1, "one token for concurrent and later requests");
  assertEquals(Object.fromEntries(tokens.forms[0]), {
    grant_type: "client_credentials",
    client_id: "client-1",
    client_secret: CLIENT_SECRET,
  });
  const tokenRequest = tokens.tokenRequests[0];
  assertEquals(tokenRequest.headers.get("content-type"), "application/x-www-form-urlencoded");
  assertEquals(tokenRequest.headers.get("authorization"), null);
  assertEquals(
    [...tokenRequest.headers.keys()].sort(),
    ["accept", "content-type", "user-agent"],
    "no custom token-request headers",
  );
  assert(!lines.join("").includes(CLIENT_SECRET));
});

test("oauth password grant sends the user's credentials and the scope when set", async () => {
  const { origin, client } = await harness({ auth: oauth("password", "useraccount") });
  const tokens = tokenServer(origin);
  await client.request({ method: "GET", path: "/api/now/table/incident" });
  assertEquals(Object.fromEntries(tokens.forms[0]), {
    grant_type: "password",
    client_id: "client-1",
    client_secret: CLIENT_SECRET,
    username: "integration",
    password: USER_PASSWORD,
    scope: "useraccount",
  });
});

test("oauth: one 401 triggers one fresh token and one resend; a second 401 is returned", async () => {
  const { origin, client } = await harness({ auth: oauth("client_credentials") });
  const tokens = tokenServer(origin);
  await client.request({ method: "GET", path: "/api/now/table/incident" });
  tokens.revoke();
  const response = await client.request({ method: "GET", path: "/api/now/table/incident" });
  assertEquals([response.status, tokens.forms.length], [200, 2]);

  server.use(http.get(`${origin}/api/now/table/incident`, () => new HttpResponse(null, { status: 401 })));
  const refused = await client.request({ method: "GET", path: "/api/now/table/incident" });
  assertEquals([refused.status, tokens.forms.length], [401, 3]);
});

test("oauth: a token is refreshed shortly before it expires, without a 401", async () => {
  const { origin, client } = await harness({ auth: oauth("client_credentials") });
  const tokens = tokenServer(origin, 1);
  await client.request({ method: "GET", path: "/api/now/table/incident" });
  await new Promise((r) => setTimeout(r, 950));
  const response = await client.request({ method: "GET", path: "/api/now/table/incident" });
  assertEquals([response.status, response.attempts, tokens.forms.length], [200, 1, 2]);
});

test("oauth: a refused token request is an HTTP error that names the settings, never the secret", async () => {
  const { origin, client } = await harness({ auth: oauth("client_credentials") });
  server.use(
    http.post(
      `${origin}/oauth_token.do`,
      () => HttpResponse.json({ error_description: "access_denied", error: "server_error" }, { status: 401 }),
    ),
  );
  const error = await assertRejects(
    () => client.request({ method: "GET", path: "/api/now/table/incident" }),
    InstanceHttpError,
    "svc.oauth.client.secret",
  );
  assertEquals((error as InstanceHttpError).status, 401);
  assert(!error.message.includes(CLIENT_SECRET));
});
