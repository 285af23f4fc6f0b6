/**
 * The registry REST calls the converters make (Confluent's `CachedSchemaRegistryClient` subset), each cached:
 *
 * | Call                 | Endpoint                                            | Cached by                     |
 * |----------------------|-----------------------------------------------------|-------------------------------|
 * | `register`           | `POST /subjects/{subject}/versions`                 | subject + schema text → id    |
 * | `lookup`             | `POST /subjects/{subject}` (is it registered?)      | subject + schema text → id, version |
 * | `schemaById`         | `GET /schemas/ids/{id}`                             | id → schema                   |
 * | `latest`             | `GET /subjects/{subject}/versions/latest`           | subject (as Confluent with `latest.cache.ttl.sec=-1`) |
 * | `version`            | `GET /subjects/{subject}/versions/{version}`        | subject + version             |
 * | `isCompatible`       | `POST /compatibility/subjects/{subject}/versions/latest` | not cached               |
 *
 * Concurrent calls for the same key share one request; a failed request is not cached.
 */
import type { RegistryHttp } from "./registry_http.ts";

export type SchemaType = "AVRO" | "JSON" | "PROTOBUF";

/** A schema as the registry stores it. */
export interface SchemaText {
  readonly schemaType: SchemaType;
  readonly schema: string;
}

/** A schema under a subject. */
export interface SubjectSchema extends SchemaText {
  readonly subject: string;
  readonly id: number;
  readonly version: number;
}

/** A bounded least-recently-used cache of requests: concurrent callers share one, failures are forgotten. */
class RequestCache<T> {
  readonly #entries = new Map<string, Promise<T>>();

  constructor(readonly capacity: number) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const cached = this.#entries.get(key);
    if (cached !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, cached);
      return cached;
    }
    const promise = load();
    this.#entries.set(key, promise);
    promise.catch(() => {
      if (this.#entries.get(key) === promise) this.#entries.delete(key);
    });
    while (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    return promise;
  }
}

function schemaType(value: unknown): SchemaType {
  return value === "JSON" || value === "PROTOBUF" ? value : "AVRO";
}

function body(schema: SchemaText): Record<string, unknown> {
  // Confluent leaves schemaType out for Avro, the default.
  return schema.schemaType === "AVRO"
    ? { schema: schema.schema }
    : { schemaType: schema.schemaType, schema: schema.schema };
}

function subjectPath(subject: string): string {
  return `/subjects/${encodeURIComponent(subject)}`;
}

function key(...parts: Array<string | number | boolean>): string {
  return parts.join("\u0000");
}

export class SchemaRegistryClient {
  readonly #http: RegistryHttp;
  readonly #ids: RequestCache<number>;
  readonly #lookups: RequestCache<SubjectSchema>;
  readonly #byId: RequestCache<SchemaText>;
  readonly #latest: RequestCache<SubjectSchema>;
  readonly #versions: RequestCache<SubjectSchema>;

  constructor(http: RegistryHttp, cacheSize = 1000) {
    this.#http = http;
    this.#ids = new RequestCache(cacheSize);
    this.#lookups = new RequestCache(cacheSize);
    this.#byId = new RequestCache(cacheSize);
    this.#latest = new RequestCache(cacheSize);
    this.#versions = new RequestCache(cacheSize);
  }

  /** Registers the schema under the subject (the registry returns the existing id when it is already there). */
  register(subject: string, schema: SchemaText, normalize = false): Promise<number> {
    return this.#ids.get(key(subject, schema.schemaType, schema.schema, normalize), async () => {
      const path = `${subjectPath(subject)}/versions${normalize ? "?normalize=true" : ""}`;
      return ((await this.#http.request("POST", path, body(schema))) as { id: number }).id;
    });
  }

  /** The id and version of the schema under the subject; `RegistryResponseError` 40401/40403 when absent. */
  lookup(subject: string, schema: SchemaText, normalize = false): Promise<SubjectSchema> {
    return this.#lookups.get(key(subject, schema.schemaType, schema.schema, normalize), async () => {
      const path = `${subjectPath(subject)}${normalize ? "?normalize=true" : ""}`;
      return toSubjectSchema(await this.#http.request("POST", path, body(schema)));
    });
  }

  schemaById(id: number): Promise<SchemaText> {
    return this.#byId.get(String(id), async () => {
      const response = await this.#http.request("GET", `/schemas/ids/${id}`) as Record<string, unknown>;
      return { schemaType: schemaType(response.schemaType), schema: String(response.schema) };
    });
  }

  latest(subject: string): Promise<SubjectSchema> {
    return this.#latest.get(subject, () => this.#subjectSchema(`${subjectPath(subject)}/versions/latest`));
  }

  version(subject: string, version: number): Promise<SubjectSchema> {
    const path = `${subjectPath(subject)}/versions/${version}`;
    return this.#versions.get(key(subject, version), () => this.#subjectSchema(path));
  }

  async #subjectSchema(path: string): Promise<SubjectSchema> {
    return toSubjectSchema(await this.#http.request("GET", path));
  }

  /** Whether the schema could be registered next under the subject, per the subject's compatibility level. */
  async isCompatible(subject: string, schema: SchemaText): Promise<boolean> {
    const response = await this.#http.request(
      "POST",
      `/compatibility${subjectPath(subject)}/versions/latest`,
      body(schema),
    ) as { is_compatible?: boolean };
    return response.is_compatible === true;
  }

  close(): void {
    this.#http.close();
  }
}

function toSubjectSchema(value: unknown): SubjectSchema {
  const r = value as Record<string, unknown>;
  return {
    subject: String(r.subject),
    id: Number(r.id),
    version: Number(r.version),
    schemaType: schemaType(r.schemaType),
    schema: String(r.schema),
  };
}
