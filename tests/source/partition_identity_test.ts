/**
 * Two aliases of one table never share a source partition: aliases that differ in a cursor field get their own
 * partition, and aliases whose scope is the same once trimmed are rejected by validation.
 */
import { assert, assertEquals, assertNotEquals } from "../support/assert.ts";
import { analyzeConnector } from "../../src/config/connector_config.ts";
import { sourcePartition } from "../../src/source/partition.ts";
import { tableSettingsFromProps } from "../../src/source/settings.ts";

function config(b: Record<string, string>): Record<string, string> {
  return {
    name: "ids",
    "connector.class": "io.tablesync.TableSourceConnector",
    "svc.url": "https://dev1.service-now.com",
    "svc.auth.username": "u",
    "svc.auth.password": "p",
    "svc.tables": "a,b",
    "svc.table.a.name": "incident",
    "svc.table.a.topic": "t.a",
    "svc.table.a.query": "active=true",
    "svc.table.b.name": "incident",
    "svc.table.b.topic": "t.b",
    ...b,
  };
}

Deno.test("aliases with the same query but another timestamp or sys id field: valid, separate partitions", () => {
  const variants: Record<string, string>[] = [
    { "svc.table.b.timestamp.field": "sys_created_on" },
    { "svc.table.b.sys.id.field": "number" },
  ];
  for (const extra of variants) {
    const analysis = analyzeConnector(config({ "svc.table.b.query": "active=true", ...extra }), {
      worker: {},
    });
    assertEquals([...analysis.errors], [], JSON.stringify(extra));
    const [a, b] = ["a", "b"].map((alias) =>
      sourcePartition("incident", "dev1.service-now.com", tableSettingsFromProps(analysis.values, alias))
    );
    assertNotEquals(a, b, JSON.stringify(extra));
  }
});

Deno.test("aliases whose query differs only in surrounding blanks collide and are rejected", () => {
  const analysis = analyzeConnector(config({ "svc.table.b.query": "  active=true " }), { worker: {} });
  const messages = [...analysis.errors.values()].flat().join("\n");
  assert(messages.includes("aliases 'a' and 'b' poll table incident"), messages);
  assert(messages.includes("their offsets would collide"), messages);
});
