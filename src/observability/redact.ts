/**
 * The one redaction layer. Every string that leaves the process through a log line, an error message,
 * a REST response or a reporter record passes through `redact`, which hides
 *  - every value registered with `registerSecret` (password-typed config values, tokens, client secrets), and
 *  - credential shapes that need no registration: Authorization headers, bearer tokens, `user:pass@` in URLs,
 *    and `password=`, `client_secret=`, `access_token=`, `refresh_token=` pairs in form bodies and query strings.
 *
 * The registry is per JavaScript realm: each task thread registers the secrets it resolves.
 */
export const HIDDEN = "[hidden]";

const secrets = new Set<string>();
let secretPattern: RegExp | null = null;

/** Registers a secret value so that it is hidden wherever it later appears. Short values are ignored (too noisy). */
export function registerSecret(value: string | null | undefined): void {
  if (!value || value.length < 4 || secrets.has(value)) return;
  secrets.add(value);
  // Log lines are redacted after JSON serialisation, where quotes and backslashes appear escaped.
  const escaped = JSON.stringify(value).slice(1, -1);
  if (escaped !== value) secrets.add(escaped);
  // Longest first so that a secret containing another is hidden whole.
  const sorted = [...secrets].sort((a, b) => b.length - a.length);
  secretPattern = new RegExp(sorted.map(escapeRegExp).join("|"), "g");
}

/** Forgets every registered secret (tests only). */
export function clearSecrets(): void {
  secrets.clear();
  secretPattern = null;
}

const SHAPES: Array<[RegExp, string]> = [
  [
    /\b(authorization|proxy-authorization)(["']?\s*[:=]\s*["']?)(basic|bearer)\s+[A-Za-z0-9._~+/=-]+/gi,
    `$1$2$3 ${HIDDEN}`,
  ],
  [/\bbearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi, `Bearer ${HIDDEN}`],
  [/\bbasic\s+[A-Za-z0-9+/]{8,}=*/gi, `Basic ${HIDDEN}`],
  [/(\b[a-z][a-z0-9+.-]*:\/\/)([^/\s:@]+):([^/\s@]+)@/gi, `$1$2:${HIDDEN}@`],
  // Not when what follows is the name of a property (`svc.auth.password: svc.auth.password is required ...`, the
  // `key: message` lines of config errors): that is no value, and hiding it made the message unreadable.
  [
    /\b(password|passwd|client_secret|access_token|refresh_token|secret|token)(["']?\s*[=:]\s*["']?)(?!(?:[a-z0-9_-]+\.)+(?:password|passwd|secret|token)\b)([^&\s"',}]+)/gi,
    `$1$2${HIDDEN}`,
  ],
];

/** Returns `text` with every registered secret and every known credential shape replaced by `[hidden]`. */
export function redact(text: string): string {
  let out = text;
  if (secretPattern) out = out.replace(secretPattern, HIDDEN);
  for (const [pattern, replacement] of SHAPES) out = out.replace(pattern, replacement);
  return out;
}

/** Deeply redacts every string inside a JSON-like value (for structured log fields and REST bodies). */
export function redactValue<T>(value: T): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map(redactValue) as T;
  if (value instanceof Error) return redactError(value) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v);
    return out as T;
  }
  return value;
}

/** A copy of an error whose message and stack are redacted; the class name is kept for callers that branch on it. */
function redactError(error: Error): Error {
  const copy = new Error(redact(error.message));
  copy.name = error.name;
  copy.stack = error.stack ? redact(error.stack) : undefined;
  return copy;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
