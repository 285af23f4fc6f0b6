/** Splitting, widening and hinting windows of a sweep (page_window.ts, sweep.ts). */
import { assertEquals, assertThrows } from "../support/assert.ts";
import { hintsFrom } from "../../src/source/sweep.ts";
import {
  hintInside,
  type PageEnd,
  splitWindow,
  startAfter,
  UnsplittableWindowError,
  widerEnd,
} from "../../src/source/page_window.ts";

const HIGH: PageEnd = { kind: "through", timestamp: "2024-01-01 00:01:00" };

Deno.test("a window over several seconds is halved by time", () => {
  assertEquals(splitWindow({ kind: "from", timestamp: "2024-01-01 00:00:00" }, HIGH), {
    kind: "through",
    timestamp: "2024-01-01 00:00:30",
  });
  assertEquals(
    splitWindow({ kind: "after", timestamp: "2024-01-01 00:00:58", sysId: "a".repeat(32) }, HIGH),
    { kind: "through", timestamp: "2024-01-01 00:00:59" },
  );
});

Deno.test("a window inside one second is halved by sys id range; a single key cannot be split", () => {
  const second = "2024-01-01 00:00:10";
  assertEquals(splitWindow({ kind: "from", timestamp: second }, { kind: "through", timestamp: second }), {
    kind: "at",
    timestamp: second,
    sysId: "7" + "f".repeat(31),
  });
  assertEquals(
    splitWindow({ kind: "after", timestamp: second, sysId: "0".repeat(31) + "2" }, {
      kind: "at",
      timestamp: second,
      sysId: "0".repeat(31) + "8",
    }),
    { kind: "at", timestamp: second, sysId: "0".repeat(31) + "5" },
  );
  assertThrows(
    () =>
      splitWindow({ kind: "after", timestamp: second, sysId: "0".repeat(31) + "2" }, {
        kind: "at",
        timestamp: second,
        sysId: "0".repeat(31) + "3",
      }),
    UnsplittableWindowError,
  );
  assertThrows(
    () =>
      splitWindow({ kind: "after", timestamp: second, sysId: "INC-7" }, {
        kind: "through",
        timestamp: second,
      }),
    UnsplittableWindowError,
    "GUIDs",
  );
});

Deno.test("after a covered window the next probe starts right after it and is twice as wide, capped at the mark", () => {
  const end: PageEnd = { kind: "through", timestamp: "2024-01-01 00:00:03" };
  assertEquals(startAfter(end), { kind: "from", timestamp: "2024-01-01 00:00:04" });
  assertEquals(widerEnd({ kind: "from", timestamp: "2024-01-01 00:00:00" }, end, HIGH), {
    kind: "through",
    timestamp: "2024-01-01 00:00:11",
  });
  assertEquals(
    widerEnd({ kind: "from", timestamp: "2024-01-01 00:00:00" }, end, {
      ...HIGH,
      timestamp: "2024-01-01 00:00:05",
    }).timestamp,
    "2024-01-01 00:00:05",
  );
  const inSecond: PageEnd = { kind: "at", timestamp: "2024-01-01 00:00:03", sysId: "0".repeat(31) + "4" };
  assertEquals(startAfter(inSecond), { kind: "after", timestamp: inSecond.timestamp, sysId: inSecond.sysId });
  assertEquals(
    widerEnd({ kind: "after", timestamp: inSecond.timestamp, sysId: "0".repeat(32) }, inSecond, HIGH),
    { kind: "at", timestamp: inSecond.timestamp, sysId: "0".repeat(31) + "c" },
  );
  assertEquals(
    widerEnd(
      { kind: "from", timestamp: inSecond.timestamp },
      { ...inSecond, sysId: "9" + "0".repeat(31) },
      HIGH,
    ),
    { kind: "through", timestamp: inSecond.timestamp },
  );
});

Deno.test("hints: last sweep's covered windows, merged up to a page, cut a window before halving does", () => {
  const end = (s: string): PageEnd => ({ kind: "through", timestamp: `2024-01-01 00:00:${s}` });
  const windows = [
    { end: end("05"), rows: 4 },
    { end: end("07"), rows: 5 },
    { end: end("09"), rows: 3 },
    { end: end("20"), rows: null },
  ];
  assertEquals(hintsFrom(windows, 10), [end("07"), end("09"), end("20")]);
  const hints = hintsFrom(windows, 10);
  assertEquals(hintInside(hints, { kind: "from", timestamp: "2024-01-01 00:00:00" }, HIGH), end("07"));
  assertEquals(hintInside(hints, startAfter(end("07")), HIGH), end("09"));
  assertEquals(hintInside(hints, startAfter(end("20")), HIGH), null, "no hint after the start");
  assertEquals(hintInside(hints, startAfter(end("07")), end("08")), null, "no hint inside the window");
});
