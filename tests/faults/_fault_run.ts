/**
 * What every broker fault must show (tests/support/broker_faults.ts measures it): no row lost; no version twice
 * with exactly-once, and without it no more duplicates than the versions written from the fault's start on plus one
 * batch re-sent; the task never FAILED (it kept retrying, showing why) and RUNNING at the end; at most a few warn
 * lines about the outage, none with a stack trace; resident memory under twice its level before the fault.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { FaultFigures } from "../support/broker_faults.ts";

/** One batch of records (svc.source.batch.size in broker_faults.ts): at most what a retried send repeats. */
const ONE_BATCH = 200;
/** Warn lines a daemon may log about one outage: the outage, its end, and a few task-level sentences. */
const MAX_LOG_LINES = 8;

export function assertFaultSurvived(f: FaultFigures): void {
  const what = `${f.fault}, ${f.mode}: ${JSON.stringify(f)}`;
  assertEquals(f.rowsLost, 0, `rows lost; ${what}`);
  if (f.mode === "exactly-once") assertEquals(f.duplicates, 0, `duplicates; ${what}`);
  else assert(f.duplicates <= f.versionsWrittenDuringAndAfter + ONE_BATCH, `too many duplicates; ${what}`);
  assert(!f.taskStates.includes("FAILED"), `the task FAILED during the fault; ${what}`);
  assertEquals(f.finalState, "RUNNING", `final task state; ${what}`);
  assertEquals(f.stackTraces, 0, `stack traces in the log; ${what}`);
  assert(f.logLines <= MAX_LOG_LINES, `too many log lines about the fault; ${what}`);
  assert(f.peakRssDuringMiB < 2 * f.rssBeforeMiB, `memory grew during the fault; ${what}`);
}
