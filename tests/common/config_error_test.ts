/**
 * One family of configuration errors: whichever room finds a setting that cannot work (the config file, the
 * Kafka client, the instance client, the offset store, converters and transforms, the source, the sink), its
 * error is `instanceof ConfigError`, so a caller branches once; and its message names the property.
 */
import { assert, assertRejects, assertThrows } from "../support/assert.ts";
import { ConfigError } from "../../src/common/config_error.ts";
import { loadConfigFile } from "../../src/config/load.ts";
import { kafkaOptionsFromProperties } from "../../src/kafka/mod.ts";
import { KafkaConfigError } from "../../src/kafka/errors.ts";
import { instanceSettingsFromProps } from "../../src/instance/mod.ts";
import { InstanceConfigError } from "../../src/instance/errors.ts";
import { createOffsetStore, OffsetStoreConfigError } from "../../src/runtime/offsets/factory.ts";
import { StringConverter } from "../../src/connect/converters/string_converter.ts";
import { ConfigException } from "../../src/connect/errors.ts";
import { TransformConfigException } from "../../src/connect/transforms/config.ts";
import { sourceSettingsFromProps } from "../../src/source/settings.ts";
import { sinkSettingsFromProps } from "../../src/sink/settings.ts";
import { checkConfiguredFields, ConfiguredFieldError } from "../../src/sink/configured_fields_check.ts";
import type { TableDictionary } from "../../src/instance/mod.ts";
import { defaultProps } from "../instance/_helpers.ts";
import { propsOf, sourceConfig } from "../source/support.ts";
import { sinkConfig, typedProps } from "../sink/support/harness.ts";
import { settingsOf } from "../sink/support/settings.ts";
import { transform } from "../connect/transforms/helpers.ts";

/** The error `fn` throws, checked to be a ConfigError of `room` whose message names `property`. */
async function configErrorOf(
  fn: () => unknown,
  room: abstract new (...args: any[]) => Error,
  property: string,
): Promise<void> {
  const error = await assertRejects(async () => await fn(), room, property);
  assert(error instanceof ConfigError, `${error.name} is not a ConfigError: ${error.message}`);
}

Deno.test("the config file: a bad value is a ConfigError naming the property", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/tablesync.yaml`;
    await Deno.writeTextFile(path, "worker:\n  bootstrap.servers: [{ host: k }]\nconnectors: []\n");
    await configErrorOf(() => loadConfigFile(path), ConfigError, "bootstrap.servers");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the Kafka client: KafkaConfigError is a ConfigError naming the property", async () => {
  await configErrorOf(
    () => kafkaOptionsFromProperties({ "bootstrap.servers": "k:9092", acks: "2" }),
    KafkaConfigError,
    "acks",
  );
});

Deno.test("the instance client: InstanceConfigError is a ConfigError naming the property", async () => {
  await configErrorOf(
    () => instanceSettingsFromProps(defaultProps({ "svc.auth.username": null })),
    InstanceConfigError,
    "svc.auth.username",
  );
});

Deno.test("the offset store: OffsetStoreConfigError is a ConfigError naming the property", async () => {
  await configErrorOf(
    () =>
      createOffsetStore({
        "offset.storage.file.filename": "offsets.json",
        "offset.flush.interval.ms": "soon",
      }),
    OffsetStoreConfigError,
    "offset.flush.interval.ms",
  );
});

Deno.test("converters and transforms: Connect's ConfigException is a ConfigError naming the property", async () => {
  await configErrorOf(
    () => new StringConverter().configure({ "converter.encoding": "EBCDIC" }, false),
    ConfigException,
    "converter.encoding",
  );
  await configErrorOf(
    () => transform("ReplaceField$Value", { renames: "a:b:c" }),
    TransformConfigException,
    "renames",
  );
});

Deno.test("the source: a value of the wrong type is a ConfigError naming the property", async () => {
  const props = propsOf(sourceConfig({ url: "http://127.0.0.1:9" } as never, { inc: "incident" }));
  await configErrorOf(
    () => sourceSettingsFromProps({ ...props, "svc.source.batch.size": "many" }),
    ConfigError,
    "svc.source.batch.size",
  );
});

Deno.test("the sink: a bad value, and a configured field the table lacks, are ConfigErrors naming the property", async () => {
  const props = typedProps(sinkConfig("http://127.0.0.1:9"));
  await configErrorOf(
    () => sinkSettingsFromProps({ ...props, "svc.sink.max.in.flight": "many" }),
    ConfigError,
    "svc.sink.max.in.flight",
  );
  const settings = settingsOf({ "svc.sink.field.allowlist": "short_description,shrot_description" });
  const dictionary: TableDictionary = {
    table: "incident",
    hierarchy: ["incident"],
    fields: new Map([["short_description", {} as never]]),
  };
  await configErrorOf(
    () => checkConfiguredFields(settings, () => Promise.resolve(dictionary)),
    ConfiguredFieldError,
    "svc.sink.field.allowlist",
  );
});

Deno.test("the base names each room's class, so logs and messages still tell the rooms apart", () => {
  assertThrows(() => {
    throw new KafkaConfigError("acks", "bad");
  }, ConfigError);
  for (
    const [error, name] of [
      [new KafkaConfigError("acks", "bad"), "KafkaConfigError"],
      [new InstanceConfigError("bad"), "InstanceConfigError"],
      [new OffsetStoreConfigError("bad"), "OffsetStoreConfigError"],
      [new ConfiguredFieldError("bad"), "ConfiguredFieldError"],
      [new ConfigException("bad"), "ConfigException"],
      [new ConfigError("bad"), "ConfigError"],
    ] as const
  ) assert(error.name === name, `${error.name} should be ${name}`);
});
