/** Response helpers: JSON bodies (redacted), Connect's error shape, and request body parsing. */
import { ConnectRestError } from "../runtime/herder/connect_rest_error.ts";
import { redactValue } from "../observability/redact.ts";

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(redactValue(body)), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function noContent(status = 204): Response {
  return new Response(null, { status });
}

export function errorResponse(status: number, message: string): Response {
  return json({ error_code: status, message }, status);
}

/** Request bodies are read within rest.request.max.bytes, as JSON only (request_body.ts). */
export { readJson } from "./request_body.ts";

/** A JSON object of string values (Connect's config map). Numbers and booleans are accepted and stringified. */
export function stringMap(value: unknown, what: string, allowNull = false): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConnectRestError(400, `${what} must be a JSON object of property names to string values`);
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null && allowNull) out[k] = null as unknown as string;
    else if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = String(v);
    else throw new ConnectRestError(400, `${what}: the value of ${k} must be a string`);
  }
  return out;
}
