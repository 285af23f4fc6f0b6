/**
 * The settings for replacing another vendor's sink (spec: Replacing another vendor's connectors, 4):
 * `svc.sink.update.method=PUT`, `svc.sink.sys.id.key.field=sysId`, `svc.sink.operation.mode=key_value`,
 * with JSON Struct keys `{"sysId": …}` as that connector's records carry them.
 */
import { assertEquals } from "../support/assert.ts";
import { Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { Struct } from "../../src/connect/struct.ts";
import { tableSinkConnector } from "../../src/sink/connector.ts";
import { seedIncident, sinkConfig, startHarness, typedProps } from "./support/harness.ts";
import { mapValue, sinkRecord } from "./support/records.ts";

const MIGRATION = {
  "svc.sink.update.method": "PUT",
  "svc.sink.sys.id.key.field": "sysId",
  "svc.sink.operation.mode": "key_value",
};

Deno.test("migration settings: Struct keys by sysId update with PUT, delete on null, create without a key", async () => {
  await using h = await startHarness({ config: MIGRATION });
  const keySchema = SchemaBuilder.struct().name("vendor.Key").field("sysId", Schema.STRING_SCHEMA).build();
  const key = (sysId: string) => new Struct(keySchema).put("sysId", sysId);
  const kept = seedIncident(h.sim, { short_description: "before", urgency: "3" });
  const gone = seedIncident(h.sim);
  await h.put(
    sinkRecord({ offset: 0, key: key(kept), keySchema, value: mapValue({ short_description: "after" }) }),
    sinkRecord({ offset: 1, key: key(gone), keySchema }),
    // A schemaless Map key works the same.
    sinkRecord({ offset: 2, key: mapValue({ sysId: kept }), value: mapValue({ impact: 1 }) }),
    sinkRecord({ offset: 3, value: mapValue({ short_description: "brand new" }) }),
  );
  const writes = h.proxy.writes().map((r) => [r.method, r.path, r.body]);
  assertEquals(writes.filter(([, path]) => path === `/api/now/table/incident/${kept}`), [
    ["PUT", `/api/now/table/incident/${kept}`, { short_description: "after" }],
    ["PUT", `/api/now/table/incident/${kept}`, { impact: "1" }],
  ]);
  assertEquals(writes.filter(([method]) => method !== "PUT").sort(), [
    ["DELETE", `/api/now/table/incident/${gone}`, null],
    ["POST", "/api/now/table/incident", { short_description: "brand new" }],
  ]);
  // The instance keeps fields a PUT leaves out, as for PATCH.
  assertEquals(h.sim.table("incident").get(kept)?.urgency, "3");
  assertEquals(h.context.recordErrors, []);
});

Deno.test("every task gets the connector's config; partitions are shared through the consumer group", () => {
  const config = sinkConfig("http://127.0.0.1:9", MIGRATION);
  const configs = tableSinkConnector.taskConfigs(config, typedProps(config), 3);
  assertEquals(configs, [config, config, config]);
  assertEquals(tableSinkConnector.kind, "sink");
  assertEquals(tableSinkConnector.className, "io.tablesync.TableSinkConnector");
});
