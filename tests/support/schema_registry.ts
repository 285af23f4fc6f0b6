/**
 * A small Confluent-compatible schema registry for tests, served over real HTTP on 127.0.0.1 (random port).
 *
 * Endpoints (the ones the converters call, plus a few for test setup):
 * - `POST /subjects/{s}/versions` register (same text → same id across subjects, as Confluent does)
 * - `POST /subjects/{s}` look up a schema under a subject
 * - `GET /schemas/ids/{id}`, `GET /subjects`, `GET /subjects/{s}/versions`, `GET /subjects/{s}/versions/{v|latest}`
 * - `POST /compatibility/subjects/{s}/versions/latest`, `PUT /config/{s}` (`{"compatibility":"NONE"}`)
 *
 * Compatibility is BACKWARD by default and checked for Avro with avsc's schema resolution (the new schema must
 * read data written with the latest one); JSON Schema and Protobuf schemas are accepted as compatible.
 * Errors use Confluent's bodies, e.g. `{"error_code":40401,"message":"Subject 'x' not found."}`.
 */
import avsc from "avsc";

export interface RecordedRegistryRequest {
  method: string;
  path: string;
  authorization: string | null;
  body: unknown;
}

export interface TestRegistryOptions {
  /** Require this Authorization header value (e.g. `Basic ...` or `Bearer ...`); others get 401. */
  requireAuthorization?: string;
  /** Serve HTTPS with this PEM certificate and key (the URL then uses `localhost`). */
  tls?: { cert: string; key: string };
}

interface StoredSchema {
  id: number;
  schemaType: string;
  schema: string;
}

interface SubjectVersion {
  version: number;
  id: number;
}

export interface TestSchemaRegistry extends AsyncDisposable {
  readonly url: string;
  readonly requests: RecordedRegistryRequest[];
  /** The registered versions of a subject, oldest first. */
  versions(subject: string): Array<{ version: number; id: number; schema: string; schemaType: string }>;
  subjects(): string[];
  /** Registers directly (test setup); returns the id. */
  register(subject: string, schema: string, schemaType?: string): number;
  /** Makes the next `count` requests answer `status` (default 503) without being handled. */
  failNext(count: number, status?: number): void;
  close(): Promise<void>;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/vnd.schemaregistry.v1+json" },
  });
}

function error(status: number, code: number, message: string): Response {
  return json(status, { error_code: code, message });
}

/** Whether `reader` can read data written with `writer` (Avro schema resolution). */
function avroCanRead(reader: string, writer: string): boolean {
  try {
    avsc.Type.forSchema(JSON.parse(reader)).createResolver(avsc.Type.forSchema(JSON.parse(writer)));
    return true;
  } catch {
    return false;
  }
}

export function startSchemaRegistry(options: TestRegistryOptions = {}): TestSchemaRegistry {
  const byId = new Map<number, StoredSchema>();
  const subjects = new Map<string, SubjectVersion[]>();
  const compatibility = new Map<string, string>();
  const requests: RecordedRegistryRequest[] = [];
  let failures: { count: number; status: number } = { count: 0, status: 503 };
  let nextId = 1;

  function idFor(schema: string, schemaType: string): number {
    for (const stored of byId.values()) {
      if (stored.schema === schema && stored.schemaType === schemaType) return stored.id;
    }
    const id = nextId++;
    byId.set(id, { id, schema, schemaType });
    return id;
  }

  function describe(subject: string, v: SubjectVersion): Record<string, unknown> {
    const stored = byId.get(v.id)!;
    return {
      subject,
      version: v.version,
      id: v.id,
      ...(stored.schemaType === "AVRO" ? {} : { schemaType: stored.schemaType }),
      schema: stored.schema,
    };
  }

  function compatible(subject: string, schema: string, schemaType: string): boolean {
    const versions = subjects.get(subject) ?? [];
    if (versions.length === 0 || (compatibility.get(subject) ?? "BACKWARD") === "NONE") return true;
    const latest = byId.get(versions[versions.length - 1].id)!;
    if (schemaType !== "AVRO" || latest.schemaType !== "AVRO") return true;
    return avroCanRead(schema, latest.schema);
  }

  function register(subject: string, schema: string, schemaType = "AVRO"): number | Response {
    const versions = subjects.get(subject) ?? [];
    for (const v of versions) {
      const stored = byId.get(v.id)!;
      if (stored.schema === schema && stored.schemaType === schemaType) return v.id;
    }
    if (!compatible(subject, schema, schemaType)) {
      return error(
        409,
        409,
        `Schema being registered is incompatible with an earlier schema for subject "${subject}"`,
      );
    }
    const id = idFor(schema, schemaType);
    versions.push({ version: (versions.at(-1)?.version ?? 0) + 1, id });
    subjects.set(subject, versions);
    return id;
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const text = request.method === "GET" ? "" : await request.text();
    const body = text === "" ? null : JSON.parse(text);
    const authorization = request.headers.get("authorization");
    requests.push({ method: request.method, path: url.pathname + url.search, authorization, body });
    if (failures.count > 0) {
      failures.count--;
      return error(failures.status, failures.status * 100 + 1, "Injected failure");
    }
    if (options.requireAuthorization !== undefined && authorization !== options.requireAuthorization) {
      return error(401, 401, "Unauthorized");
    }
    const parts = url.pathname.split("/").filter((p) => p !== "").map(decodeURIComponent);
    const schemaType = (body?.schemaType as string | undefined) ?? "AVRO";
    // POST /subjects/{s}/versions
    if (
      request.method === "POST" && parts[0] === "subjects" && parts[2] === "versions" && parts.length === 3
    ) {
      const result = register(parts[1], String(body.schema), schemaType);
      return typeof result === "number" ? json(200, { id: result }) : result;
    }
    // POST /subjects/{s}
    if (request.method === "POST" && parts[0] === "subjects" && parts.length === 2) {
      const versions = subjects.get(parts[1]);
      if (!versions) return error(404, 40401, `Subject '${parts[1]}' not found.`);
      const match = versions.find((v) => {
        const stored = byId.get(v.id)!;
        return stored.schema === body.schema && stored.schemaType === schemaType;
      });
      return match ? json(200, describe(parts[1], match)) : error(404, 40403, "Schema not found");
    }
    // GET /schemas/ids/{id}
    if (request.method === "GET" && parts[0] === "schemas" && parts[1] === "ids" && parts.length === 3) {
      const stored = byId.get(Number(parts[2]));
      if (!stored) return error(404, 40403, `Schema ${parts[2]} not found`);
      return json(200, {
        ...(stored.schemaType === "AVRO" ? {} : { schemaType: stored.schemaType }),
        schema: stored.schema,
      });
    }
    if (request.method === "GET" && parts[0] === "subjects" && parts.length === 1) {
      return json(200, [...subjects.keys()]);
    }
    if (request.method === "GET" && parts[0] === "subjects" && parts[2] === "versions") {
      const versions = subjects.get(parts[1]);
      if (!versions) return error(404, 40401, `Subject '${parts[1]}' not found.`);
      if (parts.length === 3) return json(200, versions.map((v) => v.version));
      const v = parts[3] === "latest"
        ? versions.at(-1)
        : versions.find((x) => x.version === Number(parts[3]));
      return v ? json(200, describe(parts[1], v)) : error(404, 40402, `Version ${parts[3]} not found.`);
    }
    // POST /compatibility/subjects/{s}/versions/latest
    if (request.method === "POST" && parts[0] === "compatibility" && parts[1] === "subjects") {
      if (!subjects.has(parts[2])) return error(404, 40401, `Subject '${parts[2]}' not found.`);
      return json(200, { is_compatible: compatible(parts[2], String(body.schema), schemaType) });
    }
    if (request.method === "PUT" && parts[0] === "config" && parts.length === 2) {
      compatibility.set(parts[1], String(body.compatibility));
      return json(200, { compatibility: body.compatibility });
    }
    return error(404, 404, `HTTP 404 Not Found: ${url.pathname}`);
  }

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {}, ...(options.tls ?? {}) },
    handle,
  );
  const address = server.addr as Deno.NetAddr;
  const close = async () => {
    await server.shutdown();
  };
  return {
    url: options.tls ? `https://localhost:${address.port}` : `http://127.0.0.1:${address.port}`,
    requests,
    versions: (subject) =>
      (subjects.get(subject) ?? []).map((v) => ({
        ...v,
        schema: byId.get(v.id)!.schema,
        schemaType: byId.get(v.id)!.schemaType,
      })),
    subjects: () => [...subjects.keys()],
    register: (subject, schema, schemaType = "AVRO") => {
      const result = register(subject, schema, schemaType);
      if (typeof result !== "number") throw new Error(`register failed with HTTP ${result.status}`);
      return result;
    },
    failNext: (count, status = 503) => {
      failures = { count, status };
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
