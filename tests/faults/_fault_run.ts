/**
 * What every broker fault must show (tests/support/broker_faults.ts measures it): no row lost; no version twice
 * with exactly-once, and without it no more duplicates than records that could be in flight during the fault (the
 * backfill's and the versions written from the fault on); the task never FAILED (it kept retrying, showing why)
 * and RUNNING at the end; at most a few warn lines about the outage, none with a stack trace; resident memory under
 * twice its level before the fault.
 * `restartedByDaemon`: a variant whose outage outlasts delivery.timeout.ms instead fails its task, which the daemon
 * restarts by itself until Kafka is back. `mayRestart`: the task may fail once the broker answers again (an
 * exactly-once commit the coordinator, reloading or still aborting after a resume, refused), provided the daemon
 * restarted it by itself.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { FaultFigures } from "../support/broker_faults.ts";

/** Warn lines a daemon may log about one outage: the outage, its end, and a few task-level sentences. */
const MAX_LOG_LINES = 8;

export function assertFaultSurvived(
  f: FaultFigures,
  { restartedByDaemon = false, mayRestart = false } = {},
): void {
  const what = `${f.fault}, ${f.variant}: ${JSON.stringify(f)}`;
  assertEquals(f.rowsLost, 0, `rows lost; ${what}`);
  if (f.mode === "exactly-once") assertEquals(f.duplicates, 0, `duplicates; ${what}`);
  // A send retried after its request timed out unanswered may be written twice (a producer without idempotence):
  // only records unacknowledged during the fault can be, the backfill's and those written from the fault on.
  else {
    const bound = f.backfillRows + f.versionsWrittenDuringAndAfter;
    assert(f.duplicates <= bound, `more duplicates than records that were in flight; ${what}`);
  }
  if (restartedByDaemon) {
    assert(f.taskStates.includes("FAILED"), `the task outlived delivery.timeout.ms without failing; ${what}`);
    assert(f.restartsByDaemon > 0, `the daemon did not restart the failed task; ${what}`);
  } else if (mayRestart && f.taskStates.includes("FAILED")) {
    assert(f.restartsByDaemon > 0, `the task FAILED and the daemon did not restart it; ${what}`);
  } else assert(!f.taskStates.includes("FAILED"), `the task FAILED during the fault; ${what}`);
  assertEquals(f.finalState, "RUNNING", `final task state; ${what}`);
  assertEquals(f.stackTraces, 0, `stack traces in the log; ${what}`);
  assert(
    f.logLines <= MAX_LOG_LINES * (1 + f.restartsByDaemon),
    `too many log lines about the fault; ${what}`,
  );
  assert(f.peakRssDuringMiB < 2 * f.rssBeforeMiB, `memory grew during the fault; ${what}`);
}
