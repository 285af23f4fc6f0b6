/** Reading the instance clock from `Date` headers, also when a proxy added its own. */
import { assertEquals } from "../support/assert.ts";
import { describeUnusableDate, InstanceClock, parseHttpDate } from "../../src/instance/instance_clock.ts";

const INSTANCE = "Tue, 24 Nov 2026 13:14:10 GMT";
const PROXY = "Tue, 24 Nov 2026 13:14:12 GMT";

Deno.test("one Date value parses", () => {
  assertEquals(parseHttpDate(INSTANCE)?.toISOString(), "2026-11-24T13:14:10.000Z");
  assertEquals(parseHttpDate("Tuesday, 24-Nov-26 13:14:10 GMT")?.getUTCHours(), 13, "RFC 850");
});

Deno.test("comma-joined Date values (a proxy added its own): the first valid one wins", () => {
  assertEquals(parseHttpDate(`${INSTANCE}, ${PROXY}`)?.toISOString(), "2026-11-24T13:14:10.000Z");
  assertEquals(parseHttpDate(`not a date, ${PROXY}, ${INSTANCE}`)?.toISOString(), "2026-11-24T13:14:12.000Z");
});

Deno.test("no valid value: null, and a message that says what arrived", () => {
  for (const bad of ["", "not a date", "1", "not a date, Someday, 99 Foo 20xx 25:61:61 GMT"]) {
    assertEquals(parseHttpDate(bad), null, bad);
  }
  assertEquals(parseHttpDate(null), null);
  assertEquals(describeUnusableDate(null), "the response has no Date header");
  assertEquals(
    describeUnusableDate("not a date, x"),
    'no value of the response\'s Date header is an HTTP date: "not a date, x"',
  );
});

Deno.test("the clock follows each response's Date, repeated or new; an unusable one changes nothing", () => {
  const clock = new InstanceClock();
  const at = Date.parse(INSTANCE);
  assertEquals(clock.observe(INSTANCE, at - 500)?.toISOString(), "2026-11-24T13:14:10.000Z");
  assertEquals(clock.skewMs, 500);
  // The same header again (parsed once): the skew follows the new arrival time.
  assertEquals(clock.observe(INSTANCE, at + 300)?.toISOString(), "2026-11-24T13:14:10.000Z");
  assertEquals(clock.skewMs, -300);
  assertEquals(clock.observe("not a date", at), null);
  assertEquals(clock.observe(null, at), null);
  assertEquals(clock.skewMs, -300);
  assertEquals(clock.observe(PROXY, at)?.toISOString(), "2026-11-24T13:14:12.000Z");
  assertEquals(clock.skewMs, 2000);
  assertEquals(clock.now(at)?.toISOString(), "2026-11-24T13:14:12.000Z");
});
