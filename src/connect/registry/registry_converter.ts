/**
 * The converter behind `AvroConverter`, `JsonSchemaConverter` and `ProtobufConverter`: Confluent's serializer and
 * deserializer flow around a `RegistryFormat`.
 *
 * Writing (`fromConnectData`): the Connect schema becomes a registry schema; its subject comes from the subject
 * name strategy; the schema id is registered (`auto.register.schemas`), taken from the subject's latest version
 * (`use.latest.version`) or looked up; the value is written as magic byte, id and payload. Reading
 * (`toConnectData`): the id selects the registry schema, fetched once; the Connect schema's version is the
 * schema's own (`connect.version`) or else its version under the subject.
 *
 * Registry calls happen in the `prepare…` step of the `PreparingConverter` contract (converters/preparing_converter.ts);
 * the synchronous conversions only use what it cached. Values without a schema are rejected: every registry
 * format needs one (the spec's converter matrix: schemaless source values are rejected).
 */
import { DataException } from "../errors.ts";
import { NULL_SCHEMA_AND_VALUE, type Schema, type SchemaAndValue } from "../schema.ts";
import type { ConverterConfig } from "../converters/converter.ts";
import { RetriableException } from "../task_api.ts";
import { RegistryHttp } from "./client/registry_http.ts";
import { RegistryResponseError, RegistryUnavailableError } from "./client/registry_errors.ts";
import { SchemaRegistryClient } from "./client/schema_registry_client.ts";
import type { PreparingConverter } from "../converters/preparing_converter.ts";
import type { FormatSchema, PayloadReader, RegistryFormat } from "./registry_format.ts";
import {
  parseRegistryConverterSettings,
  type RegistryConverterSettings,
} from "./registry_converter_settings.ts";
import { subjectName } from "./subject_name_strategy.ts";
import { frame, unframe } from "./wire_format.ts";

/** What a Connect schema object turned into: its registry schema and, per subject, the id and schema to write. */
interface Generated<S> {
  readonly schema: S;
  readonly writers: Map<string, { readonly id: number; readonly schema: S }>;
}

const NOT_PREPARED = "was called before its prepare step resolved the schema; await " +
  "prepareFromConnectData/prepareToConnectData first (src/connect/converters/preparing_converter.ts)";

/** What `configure` sets up. */
interface Configured<S extends FormatSchema> {
  readonly settings: RegistryConverterSettings;
  readonly client: SchemaRegistryClient;
  readonly format: RegistryFormat<S>;
  readonly isKey: boolean;
}

export class RegistryConverter<S extends FormatSchema> implements PreparingConverter {
  #state: Configured<S> | null = null;
  /**
   * Generated registry schemas and their writers by Connect schema object (the source keeps one object per
   * schema version), so the per-record work is two map lookups. Equal schemas in other objects share the
   * registry client's cache instead.
   */
  #generated = new WeakMap<Schema, Generated<S>>();
  readonly #readers = new Map<number, PayloadReader>();

  /**
   * `className`: the Java class name, for messages; `createFormat` makes the format from the converter's
   * settings (format-specific keys such as `decimal.format`).
   */
  constructor(
    readonly className: string,
    private readonly createFormat: (configs: ConverterConfig) => RegistryFormat<S>,
  ) {}

  configure(configs: ConverterConfig, isKey: boolean): void {
    this.close();
    const settings = parseRegistryConverterSettings(configs, isKey);
    const format = this.createFormat(configs);
    const client = new SchemaRegistryClient(new RegistryHttp(settings.client), settings.schemasCacheSize);
    this.#state = { settings, client, format, isKey };
    this.#generated = new WeakMap();
    this.#readers.clear();
  }

  get #configured(): Configured<S> {
    if (this.#state === null) throw new Error(`${this.className} used before configure()`);
    return this.#state;
  }

  // ---- writing

  prepareFromConnectData(topic: string, schema: Schema | null, value: unknown): Promise<void> | undefined {
    const target = this.#target(topic, schema, value);
    if (target === null || target.generated.writers.has(target.subject)) return undefined;
    return this.#resolveWriter(topic, target);
  }

  fromConnectData(topic: string, schema: Schema | null, value: unknown): Uint8Array | null {
    const target = this.#target(topic, schema, value);
    if (target === null) return null;
    const writer = target.generated.writers.get(target.subject);
    if (writer === undefined) throw new Error(`${this.className}.fromConnectData ${NOT_PREPARED}`);
    return frame(writer.id, this.#configured.format.serialize(writer.schema, schema!, value));
  }

  /** Null for a tombstone; otherwise the subject and generated schema. Throws for values it cannot write. */
  #target(topic: string, schema: Schema | null, value: unknown) {
    const { format, settings, isKey } = this.#configured;
    if (value === null || value === undefined) {
      if (schema === null || schema.isOptional || format.tombstoneForRequiredSchema) return null;
      throw new DataException(
        `Failed to serialize ${format.displayName} data from topic ${topic}: null value for a required schema`,
      );
    }
    if (schema === null) {
      throw new DataException(
        `${this.className} needs a schema: schemaless values cannot be written to the schema registry ` +
          `(topic ${topic}; use svc.source.schema.mode=strings or typed)`,
      );
    }
    let generated = this.#generated.get(schema);
    if (generated === undefined) {
      generated = { schema: format.parse(format.schemaText(schema)), writers: new Map() };
      this.#generated.set(schema, generated);
    }
    const subject = subjectName(settings.subjectNameStrategy, topic, isKey, generated.schema.recordName);
    return { subject, generated };
  }

  async #resolveWriter(topic: string, { subject, generated }: { subject: string; generated: Generated<S> }) {
    const { settings, client, format } = this.#configured;
    const text = { schemaType: format.schemaType, schema: generated.schema.text };
    try {
      let [id, schema] = [0, generated.schema];
      if (settings.autoRegisterSchemas) id = await client.register(subject, text, settings.normalizeSchemas);
      else if (settings.useLatestVersion) {
        const latest = await client.latest(subject);
        [id, schema] = [latest.id, format.parse(latest.schema)];
      } else id = (await client.lookup(subject, text, settings.normalizeSchemas)).id;
      generated.writers.set(subject, { id, schema });
    } catch (error) {
      throw this.#registryFailure(
        error,
        `Failed to serialize ${format.displayName} data from topic ${topic}`,
      );
    }
  }

  // ---- reading

  prepareToConnectData(topic: string, bytes: Uint8Array | null): Promise<void> | undefined {
    if (bytes === null) return undefined;
    const { schemaId } = unframe(bytes);
    if (this.#readers.has(schemaId)) return undefined;
    return this.#resolveReader(topic, schemaId);
  }

  toConnectData(topic: string, bytes: Uint8Array | null): SchemaAndValue {
    if (bytes === null) return NULL_SCHEMA_AND_VALUE;
    const { format } = this.#configured;
    const { schemaId, payload } = unframe(bytes);
    const reader = this.#readers.get(schemaId);
    if (reader === undefined) throw new Error(`${this.className}.toConnectData ${NOT_PREPARED}`);
    try {
      return reader(payload);
    } catch (error) {
      if (!(error instanceof DataException)) throw error;
      throw new DataException(
        `Failed to deserialize data for topic ${topic} to ${format.displayName}: ${error.message}`,
        { cause: error },
      );
    }
  }

  async #resolveReader(topic: string, schemaId: number): Promise<void> {
    const { client, format } = this.#configured;
    try {
      const text = await client.schemaById(schemaId);
      if (text.schemaType !== format.schemaType) {
        throw new DataException(
          `schema ${schemaId} is a ${text.schemaType} schema, not ${format.schemaType}`,
        );
      }
      const schema = format.parse(text.schema);
      this.#readers.set(schemaId, format.reader(schema, await this.#versionOf(topic, schema, text.schema)));
    } catch (error) {
      throw this.#registryFailure(
        error,
        `Failed to deserialize data for topic ${topic} to ${format.displayName}`,
      );
    }
  }

  /** The schema's version under the reader's subject (Confluent's deserializer asks too); null when unknown. */
  async #versionOf(topic: string, schema: S, registryText: string): Promise<number | null> {
    const { settings, client, format, isKey } = this.#configured;
    if (settings.subjectNameStrategy !== "TopicNameStrategy" && schema.recordName === null) return null;
    const subject = subjectName(settings.subjectNameStrategy, topic, isKey, schema.recordName);
    try {
      return (await client.lookup(subject, { schemaType: format.schemaType, schema: registryText })).version;
    } catch (error) {
      if (error instanceof RegistryResponseError) return null;
      throw error;
    }
  }

  #registryFailure(error: unknown, context: string): Error {
    if (error instanceof RegistryUnavailableError) {
      return new RetriableException(`${context}: ${error.message}`, { cause: error });
    }
    if (error instanceof RegistryResponseError || error instanceof DataException) {
      return new DataException(`${context}: ${error.message}`, { cause: error });
    }
    return error instanceof Error ? error : new Error(String(error));
  }

  close(): void {
    this.#state?.client.close();
    this.#state = null;
  }
}
