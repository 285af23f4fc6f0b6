/**
 * The registry REST calls the converters make (Confluent's `CachedSchemaRegistryClient` subset), each cached:
 *
 * | Call                 | Endpoint                                            | Cached by                     |
 * |----------------------|-----------------------------------------------------|-------------------------------|
 * | `register`           | `POST /subjects/{subject}/versions`                 | subject + schema text → id    |
 * | `lookup`             | `POST /subjects/{subject}` (is it registered?)      | subject + schema text → id, version |
 * | `schemaById`         | `GET /schemas/ids/{id}`                             | id → schema                   |
 * | `latest`             | `GET /subjects/{subject}/versions/latest`           | subject (as Confluent with `latest.cache.ttl.sec=-1`) |
 *
 * Concurrent calls for the same key share one request; a failed request is not cached. Response bodies are
 * checked against the shapes below (an unexpected body is a failed attempt, see registry_http.ts).
 */
import { z } from "zod";
import type { RegistryHttp } from "./registry_http.ts";

/** A schema as the registry stores it (Confluent leaves `schemaType` out for Avro, the default). */
const SCHEMA_TEXT = z.object({
  schemaType: z.enum(["AVRO", "JSON", "PROTOBUF"]).catch("AVRO"),
  schema: z.string(),
});
/** A schema under a subject. */
const SUBJECT_SCHEMA = SCHEMA_TEXT.extend({ subject: z.string(), id: z.number(), version: z.number() });
const REGISTERED = z.object({ id: z.number() });

export type SchemaText = z.infer<typeof SCHEMA_TEXT>;
export type SchemaType = SchemaText["schemaType"];
export type SubjectSchema = z.infer<typeof SUBJECT_SCHEMA>;

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

  constructor(http: RegistryHttp, cacheSize = 1000) {
    this.#http = http;
    this.#ids = new RequestCache(cacheSize);
    this.#lookups = new RequestCache(cacheSize);
    this.#byId = new RequestCache(cacheSize);
    this.#latest = new RequestCache(cacheSize);
  }

  /** Registers the schema under the subject (the registry returns the existing id when it is already there). */
  register(subject: string, schema: SchemaText, normalize = false): Promise<number> {
    return this.#ids.get(key(subject, schema.schemaType, schema.schema, normalize), async () => {
      const path = `${subjectPath(subject)}/versions${normalize ? "?normalize=true" : ""}`;
      return (await this.#http.request("POST", path, REGISTERED, body(schema))).id;
    });
  }

  /** The id and version of the schema under the subject; `RegistryResponseError` 40401/40403 when absent. */
  lookup(subject: string, schema: SchemaText, normalize = false): Promise<SubjectSchema> {
    const path = `${subjectPath(subject)}${normalize ? "?normalize=true" : ""}`;
    return this.#lookups.get(
      key(subject, schema.schemaType, schema.schema, normalize),
      () => this.#http.request("POST", path, SUBJECT_SCHEMA, body(schema)),
    );
  }

  schemaById(id: number): Promise<SchemaText> {
    return this.#byId.get(String(id), () => this.#http.request("GET", `/schemas/ids/${id}`, SCHEMA_TEXT));
  }

  latest(subject: string): Promise<SubjectSchema> {
    const path = `${subjectPath(subject)}/versions/latest`;
    return this.#latest.get(subject, () => this.#http.request("GET", path, SUBJECT_SCHEMA));
  }

  close(): void {
    this.#http.close();
  }
}
