/** Reading the instance clock from `Date` headers, also when a proxy added its own. */
import { assertEquals } from "../support/assert.ts";
import { describeUnusableDate, parseHttpDate } from "../../src/instance/instance_clock.ts";

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
