/** Building a task's converters from key.converter / value.converter / header.converter, as Kafka Connect does. */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { createTaskConverters } from "../../src/connect/converters/factory.ts";
import { builtinConverterRegistry } from "../../src/connect/converters/registry.ts";
import { JsonConverter } from "../../src/connect/converters/json/json_converter.ts";
import { StringConverter } from "../../src/connect/converters/string_converter.ts";
import { ByteArrayConverter } from "../../src/connect/converters/byte_array_converter.ts";
import { SimpleHeaderConverter } from "../../src/connect/converters/simple_header_converter.ts";
import type { Converter } from "../../src/connect/converters/converter.ts";
import { ConfigException } from "../../src/connect/errors.ts";
import { Schema } from "../../src/connect/schema.ts";
import { text, TOPIC } from "./helpers.ts";

const JSON_CLASS = "org.apache.kafka.connect.json.JsonConverter";
const STRING_CLASS = "org.apache.kafka.connect.storage.StringConverter";

Deno.test("Connect's defaults: JsonConverter with schemas for keys and values, SimpleHeaderConverter for headers", () => {
  const c = createTaskConverters({}, {}, builtinConverterRegistry());
  assert(c.keyConverter instanceof JsonConverter);
  assert(c.valueConverter instanceof JsonConverter);
  assert(c.headerConverter instanceof SimpleHeaderConverter);
  assertEquals((c.valueConverter as JsonConverter).settings.schemasEnabled, true);
  assertEquals(c.choices.value.level, "default");
  assertEquals(c.choices.key.settings, { "converter.type": "key" });
  assertEquals(c.choices.header.settings, { "converter.type": "header" });
});

Deno.test("Prefixed settings reach the converter without the prefix", () => {
  const c = createTaskConverters(
    {
      "value.converter": JSON_CLASS,
      "value.converter.schemas.enable": "false",
      "value.converter.decimal.format": "NUMERIC",
    },
    {},
    builtinConverterRegistry(),
  );
  const value = c.valueConverter as JsonConverter;
  assertEquals(value.settings.schemasEnabled, false);
  assertEquals(value.settings.decimalFormat, "NUMERIC");
  assertEquals(c.choices.value.settings, {
    "schemas.enable": "false",
    "decimal.format": "NUMERIC",
    "converter.type": "value",
  });
  assertEquals(text(c.valueConverter.fromConnectData(TOPIC, Schema.STRING_SCHEMA, "x")), '"x"');
  assertEquals((c.keyConverter as JsonConverter).settings.schemasEnabled, true);
});

Deno.test("The connector's converter overrides the worker's; the worker's applies otherwise", () => {
  const worker = {
    "key.converter": STRING_CLASS,
    "value.converter": JSON_CLASS,
    "value.converter.schemas.enable": "false",
    "header.converter": STRING_CLASS,
  };
  const fromWorker = createTaskConverters({}, worker, builtinConverterRegistry());
  assert(fromWorker.keyConverter instanceof StringConverter);
  assertEquals((fromWorker.valueConverter as JsonConverter).settings.schemasEnabled, false);
  assert(fromWorker.headerConverter instanceof StringConverter);
  assertEquals(fromWorker.choices.value.level, "worker");

  const overridden = createTaskConverters(
    { "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter" },
    worker,
    builtinConverterRegistry(),
  );
  assert(overridden.valueConverter instanceof ByteArrayConverter);
  assertEquals(overridden.choices.value.level, "connector");
  assert(overridden.keyConverter instanceof StringConverter);
});

Deno.test("Like Connect, connector-level settings without the class do not change the worker's converter", () => {
  const c = createTaskConverters(
    { "value.converter.schemas.enable": "true" },
    { "value.converter": JSON_CLASS, "value.converter.schemas.enable": "false" },
    builtinConverterRegistry(),
  );
  assertEquals((c.valueConverter as JsonConverter).settings.schemasEnabled, false);
  const connectorLevel = createTaskConverters(
    { "value.converter": JSON_CLASS },
    { "value.converter": JSON_CLASS, "value.converter.schemas.enable": "false" },
    builtinConverterRegistry(),
  );
  assertEquals((connectorLevel.valueConverter as JsonConverter).settings.schemasEnabled, true);
});

Deno.test("Converter classes may be named by simple name or alias", () => {
  const c = createTaskConverters(
    {
      "key.converter": "StringConverter",
      "value.converter": " Json ",
      "header.converter": "SimpleHeaderConverter",
    },
    {},
    builtinConverterRegistry(),
  );
  assert(c.keyConverter instanceof StringConverter);
  assert(c.valueConverter instanceof JsonConverter);
  assert(c.headerConverter instanceof SimpleHeaderConverter);
});

Deno.test("Unknown or unsuitable classes fail with the property, the class and the supported classes", () => {
  assertThrows(
    () =>
      createTaskConverters(
        { "value.converter": "io.confluent.connect.avro.AvroConverter" },
        {},
        builtinConverterRegistry(),
      ),
    ConfigException,
    "Invalid value io.confluent.connect.avro.AvroConverter for configuration value.converter: Class " +
      "io.confluent.connect.avro.AvroConverter could not be found. Supported converter classes: " +
      "org.apache.kafka.connect.converters.ByteArrayConverter, org.apache.kafka.connect.json.JsonConverter, " +
      "org.apache.kafka.connect.storage.StringConverter",
  );
  assertThrows(
    () =>
      createTaskConverters(
        { "key.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter" },
        {},
        builtinConverterRegistry(),
      ),
    Error,
    /configuration key.converter: Class org.apache.kafka.connect.storage.SimpleHeaderConverter is not a Converter/,
  );
  assertThrows(
    () => createTaskConverters({ "header.converter": "nope" }, {}, builtinConverterRegistry()),
    Error,
    /configuration header.converter: Class nope could not be found. Supported header converter classes: .*SimpleHeaderConverter/,
  );
  assertThrows(
    () =>
      createTaskConverters(
        { "value.converter": JSON_CLASS, "value.converter.schemas.enable": "maybe" },
        {},
        builtinConverterRegistry(),
      ),
    Error,
    "Invalid value maybe for configuration schemas.enable: Expected value to be either true or false",
  );
});

Deno.test("Other converters plug into the registry by class name", () => {
  class UpperCaseConverter implements Converter {
    isKey: boolean | null = null;
    configure(_configs: Record<string, string>, isKey: boolean): void {
      this.isKey = isKey;
    }
    fromConnectData(_topic: string, _schema: Schema | null, value: unknown): Uint8Array | null {
      return new TextEncoder().encode(String(value).toUpperCase());
    }
    toConnectData(_topic: string, bytes: Uint8Array | null) {
      return { schema: Schema.OPTIONAL_STRING_SCHEMA, value: bytes && new TextDecoder().decode(bytes) };
    }
  }
  const registry = builtinConverterRegistry().register({
    className: "io.example.UpperCaseConverter",
    newConverter: () => new UpperCaseConverter(),
  });
  const c = createTaskConverters({ "key.converter": "io.example.UpperCaseConverter" }, {}, registry);
  assertEquals((c.keyConverter as UpperCaseConverter).isKey, true);
  assertEquals(text(c.keyConverter.fromConnectData(TOPIC, null, "abc")), "ABC");
  assertThrows(
    () => registry.register({ className: "io.example.UpperCaseConverter" }),
    Error,
    /already registered/,
  );
});
