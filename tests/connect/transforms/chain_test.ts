import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { ConfigException } from "../../../src/connect/errors.ts";
import type { SinkRecord, SourceRecord } from "../../../src/connect/record.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { buildTransformChain } from "../../../src/connect/transforms/chain.ts";
import { TransformationError } from "../../../src/connect/transforms/transformation_error.ts";
import { P, sink, source, T } from "./helpers.ts";

const CHAIN = {
  name: "sn-incident-src",
  "connector.class": "TableSourceConnector",
  transforms: "dropTest, mask,route",
  "transforms.dropTest.type": `${T}Filter`,
  "transforms.dropTest.predicate": "isTest",
  "transforms.mask.type": `${T}MaskField$Value`,
  "transforms.mask.fields": "caller",
  "transforms.mask.predicate": "isTombstone",
  "transforms.mask.negate": "true",
  "transforms.route.type": `${T}RegexRouter`,
  "transforms.route.regex": "(.*)_raw",
  "transforms.route.replacement": "sn.$1",
  predicates: "isTest,isTombstone",
  "predicates.isTest.type": `${P}TopicNameMatches`,
  "predicates.isTest.pattern": "test_.*",
  "predicates.isTombstone.type": `${P}RecordIsTombstone`,
};

Deno.test("a chain runs in order; Filter with a predicate drops only matching records", () => {
  const chain = buildTransformChain<SourceRecord>(CHAIN);
  assertEquals(chain.stages.map((s) => s.alias), ["dropTest", "mask", "route"]);
  assertEquals(chain.apply(source({ topic: "test_incident_raw", value: { caller: "bob" } })), null);
  const kept = chain.apply(source({ topic: "incident_raw", value: { caller: "bob", n: 1 } }))!;
  assertEquals([kept.topic, kept.value], ["sn.incident", { caller: "", n: 1 }]);
  chain.close();
});

Deno.test("negate=true applies the transform only when the predicate does not match", () => {
  const chain = buildTransformChain<SourceRecord>(CHAIN);
  // A tombstone is not masked (MaskField would pass it anyway) but is still routed.
  const tombstone = chain.apply(source({ topic: "incident_raw", value: null }))!;
  assertEquals([tombstone.topic, tombstone.value], ["sn.incident", null]);
});

Deno.test("the chain works on sink records and keeps their offsets", () => {
  const chain = buildTransformChain<SinkRecord>({
    transforms: "ins",
    "transforms.ins.type": `${T}InsertField$Value`,
    "transforms.ins.offset.field": "off",
  });
  const out = chain.apply(sink({ value: { a: 1 } }))!;
  assertEquals([out.value, out.kafkaOffset], [{ a: 1, off: 42 }, 42]);
});

Deno.test("no transforms configured: records pass unchanged", () => {
  const record = source({ value: "v" });
  assertEquals(buildTransformChain({ name: "x" }).apply(record), record);
});

Deno.test("failures on a record carry the alias, class and cause", () => {
  const chain = buildTransformChain({
    transforms: "extract",
    "transforms.extract.type": `${T}ExtractField$Value`,
    "transforms.extract.field": "id",
  });
  const error = assertThrows(
    () => chain.apply(source({ valueSchema: Schema.STRING_SCHEMA, value: "x" })),
    TransformationError,
  );
  const e = error as TransformationError;
  assertEquals([e.alias, e.className, e.stage], ["extract", `${T}ExtractField$Value`, "TRANSFORMATION"]);
  assertEquals(e.javaClassName, "org.apache.kafka.connect.errors.DataException");
  assert(e.message.includes("Only Struct objects supported for [field extraction]"), e.message);
});

Deno.test("configuration errors name the alias and class", () => {
  assertThrows(
    () => buildTransformChain({ transforms: "a", "transforms.a.type": "com.example.Nope" }),
    ConfigException,
    "Invalid value com.example.Nope for configuration transforms.a.type: Class com.example.Nope could not be found.",
  );
  assertThrows(
    () => buildTransformChain({ transforms: "a" }),
    ConfigException,
    'Missing required configuration "transforms.a.type"',
  );
  assertThrows(
    () =>
      buildTransformChain({
        transforms: "r",
        "transforms.r.type": `${T}RegexRouter`,
        "transforms.r.regex": "x",
      }),
    ConfigException,
    `Invalid configuration of transformation 'r' (${T}RegexRouter): Missing required configuration "replacement"`,
  );
  assertThrows(
    () =>
      buildTransformChain({
        transforms: "f",
        "transforms.f.type": `${T}Filter`,
        "transforms.f.predicate": "p",
      }),
    ConfigException,
    "predicate 'p' is not listed in predicates",
  );
  assertThrows(
    () => buildTransformChain({ predicates: "unused", "predicates.unused.type": `${P}TopicNameMatches` }),
    ConfigException,
    `Invalid configuration of predicate 'unused' (${P}TopicNameMatches): Missing required configuration "pattern"`,
  );
  assertThrows(
    () => buildTransformChain({ transforms: "a,a", "transforms.a.type": `${T}Filter` }),
    ConfigException,
    "Duplicate alias provided.",
  );
  assertThrows(
    () =>
      buildTransformChain({
        transforms: "a",
        "transforms.a.type": "org.apache.kafka.connect.transforms.ReplaceField",
      }),
    ConfigException,
    "could not be found",
  );
});
