/**
 * A cookie jar per concurrent request stream (instance-limits.md §3): each request holding a permit also holds
 * a jar of its own for the duration, so the requests of one jar reuse one instance session and two requests in
 * flight never share one (a session runs its requests one at a time, and past 10 waiters answers HTTP 202
 * without doing the work). Jars nobody holds wait for the next request, so their number in this realm never
 * exceeds the most requests it had in flight at once, itself at most `svc.http.max.concurrent.requests`.
 *
 * A session lives on one node (the balancer pins its cookies there), and each node has its own semaphore
 * threads: `take` prefers a jar of the node with the fewest of our requests in flight, the most recently used
 * among them, so the streams spread over the nodes instead of queueing on one while another idles.
 *
 * Jars are kept per realm (the main thread, each task thread), per instance host and per identity (user name or OAuth client): a
 * session belongs to the user who opened it, and cookies, unlike permits, are not shared between task threads.
 */
import { CookieJar } from "./cookie_jar.ts";

export class SessionJars {
  readonly #idle: CookieJar[] = [];
  /** Our requests in flight per node, under the node each jar had when it was taken. */
  readonly #inFlight = new Map<string, number>();
  readonly #takenOn = new Map<CookieJar, string | null>();
  #created = 0;

  /** Jars made so far in this realm for this host and identity. */
  get created(): number {
    return this.#created;
  }

  /** A jar for one request: an idle one on the least busy node, or a new, empty one when none is idle. */
  take(): CookieJar {
    let best = -1;
    let bestLoad = Infinity;
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      const node = this.#idle[i].node;
      const load = node === null ? Infinity : this.#inFlight.get(node) ?? 0;
      if (best === -1 || load < bestLoad) [best, bestLoad] = [i, load];
    }
    let jar: CookieJar;
    if (best >= 0) jar = this.#idle.splice(best, 1)[0];
    else {
      this.#created++;
      jar = new CookieJar();
    }
    const node = jar.node;
    this.#takenOn.set(jar, node);
    if (node !== null) this.#inFlight.set(node, (this.#inFlight.get(node) ?? 0) + 1);
    return jar;
  }

  /** Gives back a jar taken with `take` once its request is over (an emptied jar is kept: it is one stream). */
  give(jar: CookieJar): void {
    const node = this.#takenOn.get(jar);
    this.#takenOn.delete(jar);
    if (node != null) this.#inFlight.set(node, (this.#inFlight.get(node) ?? 1) - 1);
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
