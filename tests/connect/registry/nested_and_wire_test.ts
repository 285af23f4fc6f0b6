/**
 * Nested unnamed Structs (the source's display-value shapes) through every converter, and the wire format's
 * framing and message indexes.
 */
import avsc from "avsc";
import protobuf from "protobufjs";
import { Buffer } from "node:buffer";
import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { startSchemaRegistry } from "../../support/schema_registry.ts";
import { nestedSchema } from "../../../src/source/schema_modes/nested_fields.ts";
import { SchemaBuilder } from "../../../src/connect/schema_builder.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { Struct } from "../../../src/connect/struct.ts";
import { DataException } from "../../../src/connect/errors.ts";
import { AvroConverter } from "../../../src/connect/registry/avro/avro_converter.ts";
import { JsonSchemaConverter } from "../../../src/connect/registry/json_schema/json_schema_converter.ts";
import { ProtobufConverter } from "../../../src/connect/registry/protobuf/protobuf_converter.ts";
import { ByteReader, frame, readMessageIndexes, unframe } from "../../../src/connect/registry/wire_format.ts";
import { hex, read, TOPIC, write } from "./fixtures.ts";

/** The writing side of the message indexes, which the converter only writes as `[0]` (one zero byte). */
/** Zig-zag varints of signed 64-bit values (a bigint beyond 2^53). */
class ByteWriter {
  readonly #values: Array<number | string> = [];

  zigzag(value: number | bigint): this {
    this.#values.push(typeof value === "bigint" ? value.toString() : value);
    return this;
  }

  /** The bytes written so far. */
  toBytes(): Uint8Array {
    const writer = protobuf.Writer.create();
    for (const value of this.#values) writer.sint64(value);
    return writer.finish();
  }
}

/** Writes Protobuf message indexes (`[0]` as the single byte 0). */
function writeMessageIndexes(writer: ByteWriter, indexes: readonly number[]): void {
  const counted = indexes.length === 1 && indexes[0] === 0 ? [0] : [indexes.length, ...indexes];
  for (const n of counted) writer.zigzag(n);
}

const all = nestedSchema("all");
const reference = nestedSchema("reference_value");
const schema = SchemaBuilder.struct().name("tablesync.incident").version(1)
  .field("number", all)
  .field("state", all)
  .field("caller_id", reference)
  .field("sys_id", Schema.OPTIONAL_STRING_SCHEMA)
  .build();
const value = new Struct(schema)
  .put("number", new Struct(all).put("value", "INC0001").put("display_value", "INC0001"))
  .put("state", new Struct(all).put("value", "2").put("display_value", "In Progress"))
  .put(
    "caller_id",
    new Struct(reference).put("value", "681ccaf9").put("link", "https://x/api/now/table/sys_user/681ccaf9"),
  )
  .put("sys_id", "abc");

Deno.test("Avro: equal unnamed shapes share one ConnectDefault record, other shapes get ConnectDefault2", async () => {
  await using registry = startSchemaRegistry();
  const converter = new AvroConverter();
  converter.configure({ "schema.registry.url": registry.url }, false);
  const bytes = (await write(converter, schema, value))!;
  const text = registry.versions(`${TOPIC}-value`)[0].schema;
  const fields = JSON.parse(text).fields;
  assertEquals(fields[0].type[1].name, "ConnectDefault");
  assertEquals(fields[0].type[1].namespace, "io.confluent.connect.avro");
  assertEquals(fields[1].type, ["null", "io.confluent.connect.avro.ConnectDefault"]);
  assertEquals(fields[2].type[1].name, "ConnectDefault2");
  const decoded = avsc.Type.forSchema(JSON.parse(text)).fromBuffer(Buffer.from(bytes.subarray(5)));
  assertEquals(decoded.state.display_value, "In Progress");
  assertEquals(decoded.caller_id.link, "https://x/api/now/table/sys_user/681ccaf9");
  const back = await read(converter, bytes);
  assert((back.value as Struct).equals(value), `${back.value}`);
});

Deno.test("JSON Schema and Protobuf carry nested Structs too", async () => {
  await using registry = startSchemaRegistry();
  const json = new JsonSchemaConverter();
  json.configure({ "schema.registry.url": registry.url }, false);
  const jsonBytes = (await write(json, schema, value))!;
  assert(((await read(json, jsonBytes)).value as Struct).equals(value));

  const proto = new ProtobufConverter();
  proto.configure({ "schema.registry.url": registry.url, "wrapper.for.nullables": "true" }, false);
  const protoBytes = (await write(proto, schema, value, "other"))!;
  const text = registry.versions("other-value")[0].schema;
  assert(text.includes("ConnectDefault1 number = 1;") && text.includes("message ConnectDefault3 {"), text);
  const root = new protobuf.Root();
  protobuf.parse(
    'syntax = "proto3"; package google.protobuf; message StringValue { string value = 1; }',
    root,
  );
  protobuf.parse(text, root, { keepCase: true });
  const decoded = root.lookupType("tablesync.incident").decode(protoBytes.subarray(6)).toJSON();
  assertEquals(decoded.state, { value: { value: "2" }, display_value: { value: "In Progress" } });
  const back = (await read(proto, protoBytes, "other")).value as Struct;
  assertEquals((back.get("caller_id") as Struct).get("link"), "https://x/api/now/table/sys_user/681ccaf9");
  assertEquals((back.get("number") as Struct).get("link"), null);
});

Deno.test("wire format: magic byte, big-endian id, zig-zag message indexes", () => {
  assertEquals(hex(frame(258, Uint8Array.of(0xaa))), "00 00 00 01 02 aa");
  assertEquals(unframe(Uint8Array.of(0, 0x7f, 0xff, 0xff, 0xff, 1)).schemaId, 2147483647);
  assertThrows(() => unframe(Uint8Array.of(1, 0, 0, 0, 1)), DataException, "Unknown magic byte!");
  assertThrows(() => unframe(Uint8Array.of(0, 0, 0)), DataException, "Unknown magic byte!");
  const cases: Array<[number[], string]> = [[[0], "00"], [[1], "02 02"], [[1, 0], "04 02 00"], [
    [0, 2, 70],
    "06 00 04 8c 01",
  ]];
  for (const [indexes, bytes] of cases) {
    const out = new ByteWriter();
    writeMessageIndexes(out, indexes);
    assertEquals(hex(out.toBytes()), bytes);
    assertEquals(readMessageIndexes(new ByteReader(out.toBytes())), indexes);
  }
  const longs = new ByteWriter().zigzag(-1).zigzag(9223372036854775807n).zigzag(-64).toBytes();
  const reader = new ByteReader(longs);
  assertEquals([reader.zigzag(), reader.zigzag(), reader.zigzag()], [-1, 9223372036854775807n, -64]);
});
