/**
 * A cookie jar per concurrent request stream (instance-limits.md §3): each request holding a permit also holds
 * a jar of its own for the duration, so the requests of one jar reuse one instance session and two requests in
 * flight never share one (a session runs its requests one at a time, and past 10 waiters answers HTTP 202
 * without doing the work). A jar nobody holds waits for the next request, most recently used first, so the
 * fewest sessions stay in use; their number in this realm never exceeds the most requests it had in flight at
 * once, itself at most `svc.http.max.concurrent.requests`.
 *
 * Jars are kept per realm (Web Worker), per instance host and per identity (user name or OAuth client): a
 * session belongs to the user who opened it, and cookies, unlike permits, are not shared between workers.
 */
import { CookieJar } from "./cookie_jar.ts";

export class SessionJars {
  readonly #idle: CookieJar[] = [];
  #created = 0;

  /** Jars made so far in this realm for this host and identity. */
  get created(): number {
    return this.#created;
  }

  /** A jar for one request: the one used last, or a new, empty one when every jar is held. */
  take(): CookieJar {
    const jar = this.#idle.pop();
    if (jar) return jar;
    this.#created++;
    return new CookieJar();
  }

  /** Gives back a jar taken with `take` once its request is over (an emptied jar is kept: it is one stream). */
  give(jar: CookieJar): void {
    this.#idle.push(jar);
  }
}

const registry = new Map<string, SessionJars>();

/** The jars of `host` (lower-cased) for `identity` in this realm. */
export function sessionJarsFor(host: string, identity: string): SessionJars {
  const key = `${host.toLowerCase()}\n${identity}`;
  let jars = registry.get(key);
  if (!jars) registry.set(key, jars = new SessionJars());
  return jars;
}
