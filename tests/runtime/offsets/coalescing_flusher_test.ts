import { assert, assertEquals, assertMatch, assertRejects } from "../../support/assert.ts";
import { CoalescingFlusher } from "../../../src/runtime/offsets/coalescing_flusher.ts";

/** A write that records calls, detects overlap and can be made to fail or to wait. */
function recordingWrite() {
  const state = { calls: 0, running: 0, maxRunning: 0, fail: false, gate: null as Promise<void> | null };
  const write = async () => {
    state.calls++;
    state.running++;
    state.maxRunning = Math.max(state.maxRunning, state.running);
    try {
      await (state.gate ?? Promise.resolve());
      if (state.fail) throw new Error("disk full");
    } finally {
      state.running--;
    }
  };
  return { state, write };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => resolve = r);
  return { promise, resolve };
}

Deno.test("flusher: flush() without changes writes nothing", async () => {
  const { state, write } = recordingWrite();
  const flusher = new CoalescingFlusher({ delayMs: 60_000, write, onBackgroundError: () => {} });
  await flusher.flush();
  assertEquals(state.calls, 0);
  await flusher.stop();
});

Deno.test("flusher: concurrent flushes never overlap and share writes", async () => {
  const { state, write } = recordingWrite();
  const flusher = new CoalescingFlusher({ delayMs: 60_000, write, onBackgroundError: () => {} });
  const gate = deferred();
  state.gate = gate.promise;
  flusher.changed();
  const first = flusher.flush(); // starts writing, blocked on the gate
  await Promise.resolve();
  const more: Promise<void>[] = [];
  for (let i = 0; i < 10; i++) {
    flusher.changed();
    more.push(flusher.flush()); // all join one queued write
  }
  assert(flusher.dirty);
  gate.resolve();
  await Promise.all([first, ...more]);
  assertEquals(state.calls, 2, "one running write plus one shared queued write");
  assertEquals(state.maxRunning, 1);
  assertEquals(flusher.dirty, false);
  await flusher.stop();
});

Deno.test("flusher: a change during a write is covered by the next flush, not lost", async () => {
  const { state, write } = recordingWrite();
  const flusher = new CoalescingFlusher({ delayMs: 60_000, write, onBackgroundError: () => {} });
  const gate = deferred();
  state.gate = gate.promise;
  flusher.changed();
  const first = flusher.flush();
  await Promise.resolve();
  flusher.changed(); // after the running write took its snapshot
  gate.resolve();
  await first;
  assert(flusher.dirty);
  await flusher.flush();
  assertEquals(state.calls, 2);
  assertEquals(flusher.dirty, false);
  await flusher.stop();
});

Deno.test("flusher: a background write follows changed() and many changes cost one write", async () => {
  const { state, write } = recordingWrite();
  const flusher = new CoalescingFlusher({ delayMs: 1, write, onBackgroundError: () => {} });
  for (let i = 0; i < 100; i++) flusher.changed();
  while (flusher.dirty) await new Promise((resolve) => setTimeout(resolve, 2));
  assertEquals(state.calls, 1);
  await flusher.stop();
});

Deno.test("flusher: a failed write rejects flush(), keeps the changes pending, and is retried", async () => {
  const { state, write } = recordingWrite();
  const errors: unknown[] = [];
  const flusher = new CoalescingFlusher({ delayMs: 1, write, onBackgroundError: (e) => errors.push(e) });
  state.fail = true;
  flusher.changed();
  await assertRejects(() => flusher.flush(), Error, /disk full/);
  assert(flusher.dirty);
  // The background retry keeps failing and reports it...
  flusher.changed();
  while (errors.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
  assertMatch(String(errors[0]), /disk full/);
  // ...until the write works again.
  state.fail = false;
  await flusher.flush();
  assertEquals(flusher.dirty, false);
  await flusher.stop();
});

Deno.test("flusher: stop() writes what is pending and schedules nothing afterwards", async () => {
  const { state, write } = recordingWrite();
  const flusher = new CoalescingFlusher({ delayMs: 60_000, write, onBackgroundError: () => {} });
  flusher.changed();
  await flusher.stop();
  assertEquals(state.calls, 1);
  flusher.changed(); // no timer may be left behind (the test sanitizer would fail)
  assert(flusher.dirty);
});
