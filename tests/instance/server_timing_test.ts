import { assertEquals } from "../support/assert.ts";
import { parseServerTiming } from "../../src/instance/server_timing.ts";

Deno.test("Server-Timing: sem_wait and sesh_wait as the instance sends them", () => {
  assertEquals(parseServerTiming("sem_wait;dur=12, sesh_wait;dur=0"), { semWaitMs: 12, seshWaitMs: 0 });
  assertEquals(parseServerTiming("sesh_wait;dur=3.5,sem_wait;dur=0"), { semWaitMs: 0, seshWaitMs: 3.5 });
  assertEquals(parseServerTiming('SEM_WAIT;desc="queue";DUR="7"'), { semWaitMs: 7, seshWaitMs: null });
  assertEquals(parseServerTiming("db;dur=53, sem_wait;dur=4, sem_wait;dur=99"), {
    semWaitMs: 4,
    seshWaitMs: null,
  });
});

Deno.test("Server-Timing: no usable sem_wait is no sample", () => {
  for (
    const header of [null, "", "db;dur=53", "sem_wait", "sem_wait;dur=", "sem_wait;dur=-1", "sem_wait;dur=x"]
  ) {
    assertEquals(parseServerTiming(header), null, String(header));
  }
});
