/** The typed table calls against msw handlers: parameters sent, statuses interpreted, bodies parsed. */
import { setupServer } from "msw/node";
import { http, HttpResponse } from "msw";
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import {
  AmbiguousRequestError,
  InstanceHttpError,
  InstanceRetriableError,
} from "../../src/instance/errors.ts";
import { noConnectCheck, testSettings, uniqueHost } from "./_helpers.ts";

const server = setupServer();
server.listen({ onUnhandledRequest: "error" });
globalThis.addEventListener("unload", () => server.close());

async function tableClient(): Promise<{ origin: string; client: TableClient }> {
  const origin = `https://${uniqueHost("table")}`;
  const client = await TableClient.create(testSettings(origin), {
    connector: noConnectCheck,
    sleep: () => Promise.resolve(),
  });
  return { origin, client };
}

function test(name: string, fn: () => Promise<void>) {
  Deno.test(name, async () => {
    server.resetHandlers();
    await fn();
  });
}

test("list sends every sysparm parameter, always no_count and suppressed pagination headers", async () => {
  const { origin, client } = await tableClient();
  let params: URLSearchParams | null = null;
  const date = "Mon, 01 Jan 2024 10:00:05 GMT";
  server.use(http.get(`${origin}/api/now/table/incident`, ({ request }) => {
    params = new URL(request.url).searchParams;
    return HttpResponse.json({ result: [{ sys_id: "a", number: "INC1" }] }, { headers: { date } });
  }));
  const page = await client.list("incident", {
    query: "active=true^ORDERBYsys_updated_on",
    limit: 500,
    fields: ["sys_id", "sys_updated_on", "number"],
    displayValue: "all",
    excludeReferenceLink: true,
    queryNoDomain: true,
    queryCategory: "list",
  });
  assertEquals(page.rows, [{ sys_id: "a", number: "INC1" }]);
  assertEquals(page.instanceTime?.toISOString(), "2024-01-01T10:00:05.000Z");
  assertEquals(Object.fromEntries(params!), {
    sysparm_fields: "sys_id,sys_updated_on,number",
    sysparm_display_value: "all",
    sysparm_exclude_reference_link: "true",
    sysparm_query_no_domain: "true",
    sysparm_query: "active=true^ORDERBYsys_updated_on",
    sysparm_limit: "500",
    sysparm_query_category: "list",
    sysparm_no_count: "true",
    sysparm_suppress_pagination_header: "true",
  });
  assert(!params!.has("sysparm_offset"));
});

test("list leaves out what is not set", async () => {
  const { origin, client } = await tableClient();
  let params: URLSearchParams | null = null;
  server.use(http.get(`${origin}/api/now/table/incident`, ({ request }) => {
    params = new URL(request.url).searchParams;
    return HttpResponse.json({ result: [] });
  }));
  await client.list("incident", { limit: 10, queryNoDomain: false, queryCategory: null });
  assertEquals(Object.fromEntries(params!), {
    sysparm_limit: "10",
    sysparm_no_count: "true",
    sysparm_suppress_pagination_header: "true",
  });
});

test("a page cut off by the instance quota is a retriable error, not rows", async () => {
  const { origin, client } = await tableClient();
  const cut =
    `{"result":[{"sys_id":"a"},{"sys_id":"b"}{"error":{"message":"Transaction cancelled: maximum execution time exceeded"}}`;
  server.use(http.get(`${origin}/api/now/table/incident`, () => new HttpResponse(cut, { status: 200 })));
  await assertRejects(
    () => client.list("incident", { limit: 10 }),
    InstanceRetriableError,
    "Transaction cancelled: maximum execution time exceeded",
  );
  server.use(http.get(`${origin}/api/now/table/incident`, () => new HttpResponse(null, { status: 202 })));
  await assertRejects(
    () => client.list("incident", { limit: 10 }),
    InstanceRetriableError,
    "HTTP 202 with an empty body",
  );
});

test("listSliced: the rows of list in slices; a body broken half-way is a retriable error", async () => {
  const { origin, client } = await tableClient();
  const rows = Array.from({ length: 50 }, (_, i) => ({ sys_id: `r${i}`, text: i % 2 ? "},{" : "x" }));
  let body = JSON.stringify({ result: rows });
  server.use(http.get(`${origin}/api/now/table/incident`, () => new HttpResponse(body, { status: 200 })));
  const page = await client.listSliced("incident", { limit: 50 }, 200);
  const slices = [...page.slices];
  assert(slices.length > 5, `${slices.length} slices`);
  assertEquals(slices.flat(), rows);
  assertEquals((await client.list("incident", { limit: 50 })).rows, rows);

  body = `{"result":[{"sys_id":"a"},{"sys_id":"b"},{"sys_id":"c"}{"sys_id":"d"}]}`;
  const broken = (await client.listSliced("incident", { limit: 50 }, 1)).slices[Symbol.iterator]();
  assertEquals(broken.next().value, [{ sys_id: "a" }]);
  assertEquals(broken.next().value, [{ sys_id: "b" }]);
  let error: unknown = null;
  try {
    broken.next();
  } catch (e) {
    error = e;
  }
  assert(error instanceof InstanceRetriableError, String(error));

  body = `{"result":[{"sys_id":"a"},{"sys_id":"b"}{"error":{"message":"Transaction cancelled: quota"}}`;
  await assertRejects(
    () => client.listSliced("incident", { limit: 10 }),
    InstanceRetriableError,
    "Transaction cancelled: quota",
  );
});

test("get: the row, or null on 404; other statuses are HTTP errors with the envelope message", async () => {
  const { origin, client } = await tableClient();
  server.use(
    http.get(`${origin}/api/now/table/incident/a1`, () => HttpResponse.json({ result: { sys_id: "a1" } })),
    http.get(
      `${origin}/api/now/table/incident/missing`,
      () =>
        HttpResponse.json({
          error: { message: "No Record found", detail: "Record doesn't exist" },
          status: "failure",
        }, {
          status: 404,
        }),
    ),
    http.get(
      `${origin}/api/now/table/secret_table/x`,
      () =>
        HttpResponse.json({
          error: { message: "Operation Failed", detail: "ACL Exception" },
          status: "failure",
        }, {
          status: 403,
        }),
    ),
  );
  assertEquals(await client.get("incident", "a1"), { sys_id: "a1" });
  assertEquals(await client.get("incident", "missing"), null);
  const error = await assertRejects(
    () => client.get("secret_table", "x"),
    InstanceHttpError,
  ) as InstanceHttpError;
  assertEquals([error.status, error.method, error.path], [403, "GET", "/api/now/table/secret_table/x"]);
  assert(error.message.includes("Operation Failed: ACL Exception"), error.message);
  assert(error.excerpt.includes("ACL Exception"));
});

test("create posts JSON; update uses PATCH or PUT and never sends sys_id; delete reads 204 and 404", async () => {
  const { origin, client } = await tableClient();
  const seen: Array<{ method: string; path: string; body: unknown }> = [];
  const record = async (request: Request) => {
    seen.push({
      method: request.method,
      path: new URL(request.url).pathname,
      body: request.method === "DELETE" ? null : await request.json(),
    });
  };
  server.use(
    http.post(`${origin}/api/now/table/incident`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ result: { sys_id: "new1" } }, { status: 201 });
    }),
    http.patch(`${origin}/api/now/table/incident/:id`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ result: { sys_id: "new1", state: "2" } });
    }),
    http.put(`${origin}/api/now/table/incident/:id`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ result: { sys_id: "new1", state: "3" } });
    }),
    http.delete(`${origin}/api/now/table/incident/:id`, async ({ request, params }) => {
      await record(request);
      return new HttpResponse(null, { status: params.id === "new1" ? 204 : 404 });
    }),
  );
  assertEquals(await client.create("incident", { short_description: "x" }), { sys_id: "new1" });
  assertEquals((await client.update("incident", "new1", { sys_id: "new1", state: "2" }))?.state, "2");
  assertEquals((await client.update("incident", "new1", { state: "3" }, "PUT"))?.state, "3");
  assertEquals(await client.delete("incident", "new1"), "deleted");
  assertEquals(await client.delete("incident", "gone"), "not_found");
  assertEquals(seen, [
    { method: "POST", path: "/api/now/table/incident", body: { short_description: "x" } },
    { method: "PATCH", path: "/api/now/table/incident/new1", body: { state: "2" } },
    { method: "PUT", path: "/api/now/table/incident/new1", body: { state: "3" } },
    { method: "DELETE", path: "/api/now/table/incident/new1", body: null },
    { method: "DELETE", path: "/api/now/table/incident/gone", body: null },
  ]);
});

test("a create whose 201 body is unreadable is ambiguous: the row may exist", async () => {
  const { origin, client } = await tableClient();
  server.use(http.post(`${origin}/api/now/table/incident`, () => new HttpResponse("{", { status: 201 })));
  await assertRejects(() => client.create("incident", {}), AmbiguousRequestError);
});

test("table names and sys_ids cannot escape the table path", async () => {
  const { client } = await tableClient();
  await assertRejects(() => client.list("../oauth_token.do", { limit: 1 }), RangeError);
  await assertRejects(() => client.get("incident", ""), RangeError);
});

test("dictionary: walks super_class to the root and unions columns, the child's definition winning", async () => {
  const { origin, client } = await tableClient();
  const objects = [
    { sys_id: "o-inc", name: "incident", super_class: "o-task" },
    { sys_id: "o-task", name: "task", super_class: "" },
  ];
  const columns: Record<string, Array<Record<string, string>>> = {
    incident: [
      {
        sys_id: "d1",
        element: "caller_id",
        internal_type: "reference",
        reference: "sys_user",
        max_length: "32",
        mandatory: "false",
      },
      {
        sys_id: "d2",
        element: "state",
        internal_type: "integer",
        reference: "",
        max_length: "40",
        mandatory: "true",
      },
    ],
    task: [
      {
        sys_id: "d3",
        element: "state",
        internal_type: "string",
        reference: "",
        max_length: "40",
        mandatory: "false",
      },
      {
        sys_id: "d4",
        element: "number",
        internal_type: "string",
        reference: "",
        max_length: "40",
        mandatory: "false",
      },
    ],
  };
  const queries: string[] = [];
  server.use(
    http.get(`${origin}/api/now/table/sys_db_object`, ({ request }) => {
      const query = new URL(request.url).searchParams.get("sysparm_query")!;
      queries.push(query);
      const [field, value] = query.split("=");
      return HttpResponse.json({ result: objects.filter((o) => o[field as "name" | "sys_id"] === value) });
    }),
    http.get(`${origin}/api/now/table/sys_dictionary`, ({ request }) => {
      const query = new URL(request.url).searchParams.get("sysparm_query")!;
      queries.push(query);
      const table = query.match(/^name=(\w+)/)![1];
      const after = query.match(/sys_id>(\w+)/)?.[1];
      // One row per page, to exercise paging.
      const rows = columns[table].filter((c) => !after || c.sys_id > after).slice(0, 1);
      return HttpResponse.json({ result: rows });
    }),
  );
  const dictionary = await client.dictionary("incident");
  assertEquals(dictionary?.hierarchy, ["incident", "task"]);
  assertEquals([...dictionary!.fields.keys()].sort(), ["caller_id", "number", "state"]);
  assertEquals(dictionary!.fields.get("state"), {
    name: "state",
    type: "integer",
    definedOn: "incident",
    maxLength: 40,
    mandatory: true,
    reference: null,
  });
  assertEquals(dictionary!.fields.get("caller_id")?.reference, "sys_user");
  assertEquals(queries.slice(0, 2), ["name=incident", "sys_id=o-task"]);
  assertEquals(queries[2], "name=incident^elementISNOTEMPTY^ORDERBYsys_id");
  assertEquals(queries[3], "name=incident^elementISNOTEMPTY^sys_id>d1^ORDERBYsys_id");

  const count = queries.length;
  await client.dictionary("incident");
  assertEquals(queries.length, count, "cached");
  assertEquals(await client.dictionary("no_such_table"), null);
});
