/** The field rules in the spec's order: rename, allow/deny, reserved, nulls, nested; then unknown fields. */
import { assertEquals, assertRejects, assertStringIncludes, assertThrows } from "../support/assert.ts";
import { Schema } from "../../src/connect/schema.ts";
import { SchemaBuilder } from "../../src/connect/schema_builder.ts";
import { ConnectTimestamp } from "../../src/connect/logical.ts";
import { Struct } from "../../src/connect/struct.ts";
import type { TableDictionary } from "../../src/instance/mod.ts";
import { DictionaryCache } from "../../src/sink/dictionary_cache.ts";
import { mapBody } from "../../src/sink/field_rules/mod.ts";
import { UnknownFieldRule } from "../../src/sink/field_rules/unknown.ts";
import { readInput } from "../../src/sink/input.ts";
import { MappingError, SinkRecordError } from "../../src/sink/record_error.ts";
import type { RawConfig } from "../../src/common/props.ts";
import { settingsOf } from "./support/settings.ts";

function body(value: unknown, overrides: RawConfig = {}): Record<string, string> {
  return mapBody(readInput(value, null)!, settingsOf(overrides).fields);
}

Deno.test("rename applies first; the allowlist matches the new names; u_ names pass unchanged", () => {
  const value = { desc: "a", u_vendor_ref: "V-1", urgency: 1, secret_note: "x" };
  assertEquals(
    body(value, {
      "svc.sink.field.rename": "desc:short_description",
      "svc.sink.field.allowlist": "short_description,u_vendor_ref",
    }),
    { short_description: "a", u_vendor_ref: "V-1" },
  );
  // The old name is gone after the rename, so listing it keeps nothing.
  assertEquals(
    body(value, { "svc.sink.field.rename": "desc:short_description", "svc.sink.field.allowlist": "desc" }),
    {},
  );
  // Renaming onto a u_ name keeps exactly that name: no prefix added or stripped.
  assertEquals(body({ vendor: "V-2" }, { "svc.sink.field.rename": "vendor:u_vendor" }), { u_vendor: "V-2" });
  assertEquals(body({ u_x: "1", x: "2" }), { u_x: "1", x: "2" });
});

Deno.test("the denylist drops listed names after renaming", () => {
  assertEquals(
    body({ a: "1", b: "2", c: "3" }, {
      "svc.sink.field.rename": "a:alpha",
      "svc.sink.field.denylist": "alpha,c",
    }),
    { b: "2" },
  );
});

Deno.test("two fields renamed onto one name are a record error", () => {
  assertThrows(
    () => body({ a: "1", b: "2" }, { "svc.sink.field.rename": "a:b" }),
    MappingError,
    'more than one field the name "b"',
  );
});

Deno.test("reserved fields and the operation header's name are stripped", () => {
  const value = {
    sys_id: "abc",
    sys_created_on: "x",
    sys_updated_on: "x",
    sys_mod_count: 3,
    sys_created_by: "x",
    sys_updated_by: "x",
    "svc.operation": "UPDATE",
    "op": "UPDATE",
    short_description: "kept",
    sys_class_name: "incident",
  };
  assertEquals(body(value), { op: "UPDATE", short_description: "kept", sys_class_name: "incident" });
  assertEquals(body(value, { "svc.sink.operation.header": "op" }), {
    "svc.operation": "UPDATE",
    short_description: "kept",
    sys_class_name: "incident",
  });
  // A rename cannot smuggle a reserved field in: rules run in order, rename first.
  assertEquals(body({ id: "abc", a: "1" }, { "svc.sink.field.rename": "id:sys_id" }), { a: "1" });
});

Deno.test("null.behavior: omit leaves the field out, clear sends an empty string, reject fails the record", () => {
  const value = { close_notes: null, short_description: "s" };
  assertEquals(body(value), { short_description: "s" });
  assertEquals(body(value, { "svc.sink.null.behavior": "clear" }), {
    close_notes: "",
    short_description: "s",
  });
  assertThrows(
    () => body(value, { "svc.sink.null.behavior": "reject" }),
    MappingError,
    'field "close_notes" is null',
  );
});

const location = () =>
  new Map<string, unknown>([["city", "Oslo"], ["geo", new Map([["lat", 59.9], ["lon", null]])]]);

Deno.test("nested.behavior=reject names the field's full paths", () => {
  const error = assertThrows(() => body({ location: location(), a: "1" }), MappingError);
  assertStringIncludes(error.message, 'field "location" holds a nested Map');
  assertStringIncludes(error.message, "location.city, location.geo.lat, location.geo.lon");
  assertThrows(() => body({ tags: ["a", "b"] }), MappingError, 'field "tags" holds a nested array');
});

Deno.test("nested.behavior=flatten joins keys with the delimiter; nested nulls follow the null rule", () => {
  assertEquals(body({ location: location() }, { "svc.sink.nested.behavior": "flatten" }), {
    location_city: "Oslo",
    location_geo_lat: "59.9",
  });
  assertEquals(
    body({ location: location() }, {
      "svc.sink.nested.behavior": "flatten",
      "svc.sink.nested.flatten.delimiter": "__",
      "svc.sink.null.behavior": "clear",
    }),
    { location__city: "Oslo", location__geo__lat: "59.9", location__geo__lon: "" },
  );
  assertThrows(
    () =>
      body({ location: location() }, {
        "svc.sink.nested.behavior": "flatten",
        "svc.sink.null.behavior": "reject",
      }),
    MappingError,
    '"location.geo.lon" is null',
  );
  assertThrows(
    () => body({ a: { b: "1" }, a_b: "2" }, { "svc.sink.nested.behavior": "flatten" }),
    MappingError,
    'more than one field the name "a_b"',
  );
  assertThrows(
    () => body({ a: { tags: ["x"] } }, { "svc.sink.nested.behavior": "flatten" }),
    MappingError,
    'field "a.tags" is an array',
  );
});

Deno.test("flatten keeps nested Struct schemas, so nested logical values render", () => {
  const inner = SchemaBuilder.struct().field("at", ConnectTimestamp.SCHEMA).field("by", Schema.STRING_SCHEMA)
    .build();
  const outer = SchemaBuilder.struct().field("resolved", inner).build();
  const value = new Struct(outer).put(
    "resolved",
    new Struct(inner).put("at", new Date(Date.UTC(2024, 0, 2, 3, 4, 5))).put("by", "ops"),
  );
  assertEquals(
    mapBody(readInput(value, outer)!, settingsOf({ "svc.sink.nested.behavior": "flatten" }).fields),
    {
      resolved_at: "2024-01-02 03:04:05",
      resolved_by: "ops",
    },
  );
});

Deno.test("nested.behavior=stringify sends JSON text with exact numbers", () => {
  const text =
    '{"location":{"city":"Oslo","zip":"0150","lat":59.91234567890123456789,"tags":["a",null],"ok":true}}';
  assertEquals(body(text, { "svc.sink.nested.behavior": "stringify" }), {
    location: '{"city":"Oslo","zip":"0150","lat":59.91234567890123456789,"tags":["a",null],"ok":true}',
  });
});

function dictionaryWith(...fields: string[]): DictionaryCache {
  let lookups = 0;
  const cache = new DictionaryCache((table) => {
    lookups++;
    const dictionary: TableDictionary = {
      table,
      hierarchy: [table, "task"],
      fields: new Map(fields.map((name) => [name, {
        name,
        type: "string",
        definedOn: table,
        maxLength: null,
        mandatory: false,
        reference: null,
      }])),
    };
    return Promise.resolve(dictionary);
  });
  Object.defineProperty(cache, "lookups", { get: () => lookups });
  return cache;
}

Deno.test("unknown.field.behavior: fail names the fields, drop writes the rest, passthrough sends all", async () => {
  const cache = dictionaryWith("short_description", "u_vendor");
  const input = { short_description: "s", u_vendor: "v", bogus: "x", also_bogus: "y" };
  const error = await assertRejects(
    () => new UnknownFieldRule("fail", cache).apply("incident", input),
    SinkRecordError,
  );
  assertEquals((error as SinkRecordError).classification, "invalid_field");
  assertStringIncludes(error.message, 'table "incident" has no field "bogus", "also_bogus"');
  assertEquals(await new UnknownFieldRule("drop", cache).apply("incident", input), {
    body: { short_description: "s", u_vendor: "v" },
    dropped: ["bogus", "also_bogus"],
  });
  assertEquals(await new UnknownFieldRule("passthrough", cache).apply("incident", input), {
    body: input,
    dropped: [],
  });
  // One lookup served all three calls.
  assertEquals((cache as unknown as { lookups: number }).lookups, 1);
});

Deno.test("an unreadable dictionary is a record error that says how to go on", async () => {
  const cache = new DictionaryCache(() => Promise.resolve(null));
  await assertRejects(
    () => new UnknownFieldRule("drop", cache).apply("x_table", { a: "1" }),
    SinkRecordError,
    "svc.sink.unknown.field.behavior=passthrough",
  );
});

Deno.test("a failed dictionary lookup is not cached", async () => {
  let calls = 0;
  const cache = new DictionaryCache(() => {
    calls++;
    return calls === 1 ? Promise.reject(new Error("boom")) : Promise.resolve(null);
  });
  await assertRejects(() => cache.columns("incident"), Error, "boom");
  assertEquals(await cache.columns("incident"), null);
  assertEquals(calls, 2);
});
