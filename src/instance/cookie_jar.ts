/**
 * The cookies of one instance session (instance-limits.md §3): whatever Set-Cookie brings (`JSESSIONID`,
 * `glide_session_store`, `glide_user_route`, a load-balancer affinity cookie such as `BIGipServerpool_<name>`),
 * sent back on the next request so that the instance binds it to the same session (and the load balancer to
 * the same node) instead of opening a new session per request.
 *
 * One jar serves one request at a time (session_jars.ts hands a jar to each permit): a session runs its
 * requests one by one and answers HTTP 202 without doing the work once too many wait on it.
 *
 * Every cookie goes to every path of the one host the jar belongs to: the instance sets them on `/`, and a jar
 * never leaves its host. Values are session credentials: never log them.
 */

/** The cookies that name the session itself: a new value for one of them means a new session. */
const SESSION_COOKIES = new Set(["jsessionid", "glide_session_store"]);

/** What a response did to the jar. */
export type JarChange =
  /** Nothing new about the session (maybe other cookies changed). */
  | "same"
  /** An empty jar got a session. */
  | "started"
  /** The instance replaced the session the jar held (expired or rotated): the old cookies were dropped. */
  | "rotated";

interface StoredCookie {
  value: string;
  /** `Date.now()` instant after which it is not sent; Infinity for a session cookie. */
  expiresAt: number;
}

export class CookieJar {
  readonly #cookies = new Map<string, StoredCookie>();

  /** True while the jar holds no session cookie: the next request opens a session. */
  get sessionless(): boolean {
    for (const name of this.#cookies.keys()) if (SESSION_COOKIES.has(name.toLowerCase())) return false;
    return true;
  }

  /**
   * The node of the instance the session lives on, as its cookies name it (`glide_user_route`, else the load
   * balancer's affinity cookie); null before the first answer.
   */
  get node(): string | null {
    let balancer: string | null = null;
    for (const [name, cookie] of this.#cookies) {
      if (name.toLowerCase() === "glide_user_route") return cookie.value;
      if (/^BIGipServer/i.test(name)) balancer ??= cookie.value;
    }
    return balancer;
  }

  /** The `Cookie` request header, or null when nothing unexpired is held. */
  header(now = Date.now()): string | null {
    const pairs: string[] = [];
    for (const [name, cookie] of this.#cookies) {
      if (cookie.expiresAt <= now) this.#cookies.delete(name);
      else pairs.push(`${name}=${cookie.value}`);
    }
    return pairs.length === 0 ? null : pairs.join("; ");
  }

  /**
   * Takes a response's `Set-Cookie` lines (`Headers.getSetCookie()`). When they carry a session cookie whose
   * value differs from the one held, the session was replaced: every cookie of the old one is dropped first
   * (its route and affinity cookies belong to the old session), then the new ones are kept.
   */
  store(setCookies: readonly string[], now = Date.now()): JarChange {
    const parsed = setCookies.map((line) => parseSetCookie(line, now)).filter((c) => c !== null);
    const wasSessionless = this.sessionless;
    const rotated = !wasSessionless && parsed.some((c) => {
      if (!SESSION_COOKIES.has(c.name.toLowerCase()) || c.expiresAt <= now) return false;
      const held = this.#cookies.get(c.name);
      return held !== undefined && held.value !== c.value;
    });
    if (rotated) this.#cookies.clear();
    for (const { name, value, expiresAt } of parsed) {
      if (expiresAt <= now) this.#cookies.delete(name);
      else this.#cookies.set(name, { value, expiresAt });
    }
    if (rotated) return "rotated";
    return wasSessionless && !this.sessionless ? "started" : "same";
  }

  /** Forgets everything: the next request opens a new session (after a 401, or when the session is stuck). */
  clear(): void {
    this.#cookies.clear();
  }
}

/** One `Set-Cookie` line as name, value and expiry; null when it has no `name=`. */
function parseSetCookie(
  line: string,
  now: number,
): { name: string; value: string; expiresAt: number } | null {
  const [pair, ...attributes] = line.split(";");
  const at = pair.indexOf("=");
  if (at <= 0) return null;
  const name = pair.slice(0, at).trim();
  const value = pair.slice(at + 1).trim();
  if (name === "") return null;
  let expiresAt = Infinity;
  let maxAgeSeen = false;
  for (const attribute of attributes) {
    const eq = attribute.indexOf("=");
    const key = (eq < 0 ? attribute : attribute.slice(0, eq)).trim().toLowerCase();
    const arg = eq < 0 ? "" : attribute.slice(eq + 1).trim();
    if (key === "max-age" && /^-?\d+$/.test(arg)) {
      // Max-Age wins over Expires (RFC 6265 §5.3); zero or negative deletes the cookie.
      maxAgeSeen = true;
      expiresAt = Number(arg) <= 0 ? -Infinity : now + Number(arg) * 1000;
    } else if (key === "expires" && !maxAgeSeen) {
      const at = Date.parse(arg);
      if (!Number.isNaN(at)) expiresAt = at <= now ? -Infinity : at;
    }
  }
  return { name, value, expiresAt };
}
