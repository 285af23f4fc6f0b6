/**
 * The async step of converters that must reach a service first (the schema-registry converters).
 *
 * `Converter.fromConnectData` / `toConnectData` are synchronous, but a registry converter must first register or
 * look up a schema (serializing) or fetch a schema by id (deserializing). A `PreparingConverter` splits that off:
 *
 * 1. `prepareFromConnectData(topic, schema, value, headers)` / `prepareToConnectData(topic, bytes, headers)`
 *    return `undefined` when everything needed is cached (the common case: one registry call per new schema,
 *    not per record), or a promise that resolves once it is. A rejected promise carries the same errors the
 *    conversion would throw: `DataException` (bad data, schema rejected by the registry) or
 *    `RetriableException` (registry unreachable after the client's retries).
 * 2. The synchronous call then converts. Called without a prepare for a record that needs one, it throws a
 *    plain `Error` naming this contract (a wiring bug, not bad data).
 *
 * `fromConnectDataAsync` / `toConnectDataAsync` do both steps for any converter, so a runtime can always call
 * them: for converters that need no preparation they add nothing but the `await`.
 */
import type { Converter, RawHeader } from "./converter.ts";
import type { Schema, SchemaAndValue } from "../schema.ts";

export interface PreparingConverter extends Converter {
  prepareFromConnectData(
    topic: string,
    schema: Schema | null,
    value: unknown,
    headers?: readonly RawHeader[],
  ): Promise<void> | undefined;

  prepareToConnectData(
    topic: string,
    bytes: Uint8Array | null,
    headers?: readonly RawHeader[],
  ): Promise<void> | undefined;
}

export function isPreparingConverter(converter: Converter): converter is PreparingConverter {
  return typeof (converter as Partial<PreparingConverter>).prepareFromConnectData === "function" &&
    typeof (converter as Partial<PreparingConverter>).prepareToConnectData === "function";
}

/** `fromConnectData`, after awaiting the converter's preparation when it has one. */
export async function fromConnectDataAsync(
  converter: Converter,
  topic: string,
  schema: Schema | null,
  value: unknown,
  headers?: RawHeader[],
): Promise<Uint8Array | null> {
  if (isPreparingConverter(converter)) {
    const pending = converter.prepareFromConnectData(topic, schema, value, headers);
    if (pending !== undefined) await pending;
  }
  return converter.fromConnectData(topic, schema, value, headers);
}

/** `toConnectData`, after awaiting the converter's preparation when it has one. */
export async function toConnectDataAsync(
  converter: Converter,
  topic: string,
  bytes: Uint8Array | null,
  headers?: readonly RawHeader[],
): Promise<SchemaAndValue> {
  if (isPreparingConverter(converter)) {
    const pending = converter.prepareToConnectData(topic, bytes, headers);
    if (pending !== undefined) await pending;
  }
  return converter.toConnectData(topic, bytes, headers);
}
