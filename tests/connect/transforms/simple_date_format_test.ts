import { assertEquals, assertThrows } from "../../support/assert.ts";
import {
  DateParseError,
  DatePatternError,
  SimpleDateFormat,
} from "../../../src/connect/transforms/simple_date_format.ts";

const INSTANT = new Date(Date.UTC(2017, 0, 3, 14, 5, 9, 7)); // a Tuesday

Deno.test("SimpleDateFormat formats Java pattern letters in UTC", () => {
  const cases: [string, string][] = [
    ["yyyy-MM-dd HH:mm:ss", "2017-01-03 14:05:09"],
    ["yyyyMMdd", "20170103"],
    ["yy-M-d h:m a", "17-1-3 2:5 PM"],
    ["EEE, d MMM yyyy HH:mm:ss Z", "Tue, 3 Jan 2017 14:05:09 +0000"],
    ["EEEE MMMM", "Tuesday January"],
    ["yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2017-01-03T14:05:09.007Z"],
    ["'o''clock' k K D u G z", "o'clock 14 2 3 2 AD UTC"],
    ["S SSSS", "7 0007"],
  ];
  for (const [pattern, expected] of cases) {
    assertEquals(new SimpleDateFormat(pattern).format(INSTANT), expected, pattern);
  }
});

Deno.test("SimpleDateFormat parses leniently: abutting fields, rollover, trailing text, zones", () => {
  assertEquals(
    new SimpleDateFormat("yyyyMMddHHmmss").parse("20170103140509"),
    new Date(Date.UTC(2017, 0, 3, 14, 5, 9)),
  );
  assertEquals(new SimpleDateFormat("yyyy-MM-dd").parse("2017-1-3"), new Date(Date.UTC(2017, 0, 3)));
  assertEquals(new SimpleDateFormat("yyyy-MM-dd").parse("2017-13-01"), new Date(Date.UTC(2018, 0, 1)));
  assertEquals(new SimpleDateFormat("yyyy-MM-dd").parse("2017-01-03T10:00"), new Date(Date.UTC(2017, 0, 3)));
  assertEquals(
    new SimpleDateFormat("yyyy-MM-dd HH:mm Z").parse("2017-01-03 14:05 +0200"),
    new Date(Date.UTC(2017, 0, 3, 12, 5)),
  );
  assertEquals(
    new SimpleDateFormat("d MMM yyyy h a").parse("3 jan 2017 2 PM"),
    new Date(Date.UTC(2017, 0, 3, 14)),
  );
  assertEquals(new SimpleDateFormat("yyyy").parse("0017").getUTCFullYear(), 17);
});

Deno.test("SimpleDateFormat rejects bad patterns and unparseable text like Java", () => {
  assertThrows(() => new SimpleDateFormat("bad-format"), DatePatternError, "Illegal pattern character 'b'");
  assertThrows(() => new SimpleDateFormat("yyyy'T"), DatePatternError, "Unterminated quote");
  assertThrows(
    () => new SimpleDateFormat("yyyy-MM-dd").parse("2017/01/03"),
    DateParseError,
    "Unparseable date",
  );
});
