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
import { LruCache } from "../../converters/json/lru_cache.ts";
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

/** The request body: Confluent leaves schemaType out for Avro, the default. */
function body({ schemaType, schema }: SchemaText): Record<string, unknown> {
  return schemaType === "AVRO" ? { schema } : { schemaType, schema };
}

function subjectPath(subject: string): string {
  return `/subjects/${encodeURIComponent(subject)}`;
}

/** The cached request for `key`, else `load()`'s: concurrent callers share one, a failed one is forgotten. */
function cached<T>(cache: LruCache<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const promise = load();
  cache.set(key, promise);
  promise.catch(() => {
    if (cache.get(key) === promise) cache.delete(key);
  });
  return promise;
}

export class SchemaRegistryClient {
  readonly #http: RegistryHttp;
  readonly #ids: LruCache<string, Promise<number>>;
  readonly #lookups: LruCache<string, Promise<SubjectSchema>>;
  readonly #byId: LruCache<string, Promise<SchemaText>>;
  readonly #latest: LruCache<string, Promise<SubjectSchema>>;

  constructor(http: RegistryHttp, cacheSize = 1000) {
    this.#http = http;
    this.#ids = new LruCache(cacheSize);
    this.#lookups = new LruCache(cacheSize);
    this.#byId = new LruCache(cacheSize);
    this.#latest = new LruCache(cacheSize);
  }

  /** Registers the schema under the subject (the registry returns the existing id when it is already there). */
  register(subject: string, schema: SchemaText, normalize = false): Promise<number> {
    return cached(this.#ids, JSON.stringify([subject, schema, normalize]), async () => {
      const path = `${subjectPath(subject)}/versions${normalize ? "?normalize=true" : ""}`;
      return (await this.#http.request("POST", path, REGISTERED, body(schema))).id;
    });
  }

  /** The id and version of the schema under the subject; `RegistryResponseError` 40401/40403 when absent. */
  lookup(subject: string, schema: SchemaText, normalize = false): Promise<SubjectSchema> {
    const path = `${subjectPath(subject)}${normalize ? "?normalize=true" : ""}`;
    return cached(
      this.#lookups,
      JSON.stringify([subject, schema, normalize]),
      () => this.#http.request("POST", path, SUBJECT_SCHEMA, body(schema)),
    );
  }

  schemaById(id: number): Promise<SchemaText> {
    return cached(this.#byId, String(id), () => this.#http.request("GET", `/schemas/ids/${id}`, SCHEMA_TEXT));
  }

  latest(subject: string): Promise<SubjectSchema> {
    const path = `${subjectPath(subject)}/versions/latest`;
    return cached(this.#latest, subject, () => this.#http.request("GET", path, SUBJECT_SCHEMA));
  }

  close(): void {
    this.#http.close();
  }
}
