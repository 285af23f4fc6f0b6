import { assert, assertEquals } from "../support/assert.ts";
import { CookieJar } from "../../src/instance/cookie_jar.ts";
import { SessionJars } from "../../src/instance/session_jars.ts";

const NOW = Date.parse("2030-01-01T00:00:00Z");
/** What a Basic-auth response of a real instance sets (instance-limits.md §3). */
const FIRST_RESPONSE = [
  "JSESSIONID=AAA111; Path=/; HttpOnly; SameSite=None; Secure",
  "glide_user_route=glide.r1; Max-Age=2147483647; Expires=Wed, 19-Jan-2094 03:14:07 GMT; Path=/; HttpOnly",
  "glide_session_store=S1; Max-Age=1800; Expires=Tue, 01-Jan-2030 00:30:00 GMT; Path=/; HttpOnly",
  "BIGipServerpool_dev1=2910081290.36158.0000; path=/; Httponly; Secure",
];

Deno.test("cookie jar: keeps what Set-Cookie brings and sends it back", () => {
  const jar = new CookieJar();
  assert(jar.sessionless);
  assertEquals(jar.header(NOW), null);
  assertEquals(jar.store(FIRST_RESPONSE, NOW), "started");
  assertEquals(
    jar.header(NOW),
    "JSESSIONID=AAA111; glide_user_route=glide.r1; glide_session_store=S1; BIGipServerpool_dev1=2910081290.36158.0000",
  );
  // The same session confirmed, a cookie refreshed: nothing new.
  assertEquals(jar.store(["glide_session_store=S1; Max-Age=1800"], NOW + 1000), "same");
  assertEquals(jar.store([], NOW + 2000), "same");
});

Deno.test("cookie jar: Max-Age and Expires end a cookie; Max-Age=0 deletes it", () => {
  const jar = new CookieJar();
  jar.store(FIRST_RESPONSE, NOW);
  // glide_session_store lives 1800 s.
  assertEquals(jar.header(NOW + 1801_000)?.includes("glide_session_store"), false);
  jar.store(["BIGipServerpool_dev1=; Max-Age=0", "old=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], NOW);
  assertEquals(jar.header(NOW)?.includes("BIGip"), false);
  assertEquals(jar.header(NOW)?.includes("old="), false);
});

Deno.test("cookie jar: a new session id drops every cookie of the old session (rotation)", () => {
  const jar = new CookieJar();
  jar.store(FIRST_RESPONSE, NOW);
  assertEquals(
    jar.store(["JSESSIONID=BBB222; Path=/", "glide_session_store=S2; Max-Age=1800"], NOW),
    "rotated",
  );
  assertEquals(jar.header(NOW), "JSESSIONID=BBB222; glide_session_store=S2");
  jar.clear();
  assert(jar.sessionless);
  assertEquals(jar.header(NOW), null);
});

Deno.test("cookie jar: malformed lines are ignored", () => {
  const jar = new CookieJar();
  assertEquals(jar.store(["", "=x", "novalue", "; Path=/"], NOW), "same");
  assertEquals(jar.header(NOW), null);
});

Deno.test("session jars: one jar per concurrent request, reused most recent first", () => {
  const jars = new SessionJars();
  const a = jars.take();
  const b = jars.take();
  assert(a !== b, "two requests in flight never share a jar");
  assertEquals(jars.created, 2);
  jars.give(a);
  jars.give(b);
  assert(jars.take() === b, "the jar given back last goes first");
  assert(jars.take() === a);
  const c = jars.take();
  assertEquals(jars.created, 3);
  jars.give(c);
});

Deno.test("session jars: a jar of the node with the fewest requests in flight goes first", () => {
  const jars = new SessionJars();
  const onNode = (route: string) => {
    const jar = jars.take();
    jar.store([`JSESSIONID=${route}-${jars.created}`, `glide_user_route=${route}`], NOW);
    return jar;
  };
  const [a1, a2, b1] = [onNode("A"), onNode("A"), onNode("B")];
  assertEquals([a1.node, b1.node], ["A", "B"]);
  jars.give(b1);
  jars.give(a2);
  jars.give(a1);
  // Idle: b1, a2, a1 (a1 most recent). Nothing in flight: the most recent, a1; then node B has none in flight.
  const first = jars.take();
  assert(first === a1);
  assert(jars.take() === b1, "node A has one in flight, node B none");
  assert(jars.take() === a2);
  // Only the balancer's cookie: it names the node too.
  const jar = new CookieJar();
  jar.store(["JSESSIONID=x", "BIGipServerpool_dev1=123.456.0000"], NOW);
  assertEquals(jar.node, "123.456.0000");
});
