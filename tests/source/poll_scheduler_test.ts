/** The poll scheduler (src/source/poll_scheduler.ts): intervals by change rate within the host's budget. */
import { assert, assertEquals } from "../support/assert.ts";
import { allocateIntervals, type PollBudget, PollScheduler } from "../../src/source/poll_scheduler.ts";

class FixedBudget implements PollBudget {
  tables = 0;
  constructor(public rate: number | null) {}
  pollRate(): number | null {
    return this.rate;
  }
  registerTables(n: number): void {
    this.tables += n;
  }
  catchUps = 0;
  registerCatchUps(n: number): void {
    this.catchUps += n;
  }
}

const FLOOR = 5000;
const MAX = 120_000;

Deno.test("allocation: a budget that pays every floor keeps every table at its floor", () => {
  const tables = Array.from({ length: 10 }, () => ({ changeRate: 0.01, floorMs: FLOOR, maxMs: MAX }));
  assertEquals(allocateIntervals(tables, 10 / 5 + 1), tables.map(() => FLOOR));
});

Deno.test("allocation: under a tight budget, tables that change poll more often, within floor and ceiling", () => {
  const hot = { changeRate: 0.02, floorMs: FLOOR, maxMs: MAX };
  const warm = { changeRate: 0.002, floorMs: FLOOR, maxMs: MAX };
  const cold = { changeRate: 0.0001, floorMs: FLOOR, maxMs: MAX };
  const tables = [hot, warm, ...Array.from({ length: 198 }, () => cold)];
  const budget = 3; // requests per second: 200 tables at a 5 s floor would need 40
  const intervals = allocateIntervals(tables, budget);
  const [hotMs, warmMs, coldMs] = intervals;
  assert(hotMs < warmMs && warmMs < coldMs, `intervals ${hotMs} ${warmMs} ${coldMs}`);
  assert(intervals.every((ms) => ms >= FLOOR && ms <= MAX));
  // The budget is spent, not exceeded: scheduled polls plus follow-ups after changes.
  const followUps = tables.reduce((s, t) => s + t.changeRate, 0);
  const spent = intervals.reduce((s, ms) => s + 1000 / ms, 0) + followUps;
  assert(spent <= budget * 1.01 && spent >= budget * 0.9, `spent ${spent}`);
  // √λ: the hot table changes ten times as often as the warm one and polls about √10 times as often.
  assert(Math.abs(warmMs / hotMs - Math.sqrt(10)) < 0.1, `ratio ${warmMs / hotMs}`);
});

Deno.test("allocation: a budget below every ceiling gives every table its ceiling", () => {
  const tables = Array.from({ length: 100 }, () => ({ changeRate: 0.05, floorMs: FLOOR, maxMs: MAX }));
  assertEquals(allocateIntervals(tables, 0.1), tables.map(() => MAX));
});

Deno.test("scheduler: without a known budget every table polls at its floor", () => {
  const scheduler = new PollScheduler(new FixedBudget(null), MAX, () => 0);
  const table = scheduler.add(FLOOR);
  assertEquals(table.swept(false, 10_000), FLOOR);
  assertEquals(new PollScheduler(null, MAX).add(FLOOR).swept(false, 1), FLOOR);
});

Deno.test("scheduler: intervals move with change rates, and a change snaps the table to its floor", () => {
  let now = 0;
  const budget = new FixedBudget(2); // 50 tables at a 5 s floor would need 10
  const scheduler = new PollScheduler(budget, MAX, () => now);
  const tables = Array.from({ length: 50 }, () => scheduler.add(FLOOR));
  assertEquals(budget.tables, 0, "counted once the task's tables start polling");
  scheduler.open();
  assertEquals(budget.tables, 50);
  const [busy, quiet] = tables;
  // Ten minutes: the busy table changes at every sweep, the others never.
  const next = tables.map(() => 0);
  while (now < 600_000) {
    now += 1000;
    tables.forEach((t, i) => {
      if (now >= next[i]) next[i] = now + t.swept(t === busy, now);
    });
  }
  assert(busy.changeRate() > 10 * quiet.changeRate(), `${busy.changeRate()} vs ${quiet.changeRate()}`);
  // A change snaps to the floor; without one the busy table's scheduled interval is still below the quiet one's.
  assertEquals(busy.nextIntervalMs, FLOOR);
  scheduler.reallocate(true);
  assert(busy.scheduledMs < quiet.scheduledMs, `${busy.scheduledMs} vs ${quiet.scheduledMs}`);
  assert(quiet.scheduledMs > FLOOR, "the budget cannot poll every table at its floor");
  // The quiet table changes once: its next poll is at the floor.
  now += 1000;
  assertEquals(quiet.swept(true, now), FLOOR);
  now += FLOOR;
  assert(quiet.swept(false, now) > FLOOR);
  scheduler.close();
  assertEquals(budget.tables, 0);
});

Deno.test("scheduler: a ceiling at the floor keeps every table at its floor", () => {
  const scheduler = new PollScheduler(new FixedBudget(0.01), FLOOR, () => 0);
  const tables = Array.from({ length: 20 }, () => scheduler.add(FLOOR));
  assertEquals(tables.map((t) => t.swept(false, 1000)), tables.map(() => FLOOR));
});

/**
 * One table at its ceiling, polled as the task polls it, for an hour in steps of 100 ms: each sweep's window ends
 * `lagMs` before the sweep starts (the safety lag, the clock's truncation to the second), its first page comes
 * `queueMs(at)` after it starts at `at` (the pacer's queue and the request), and it ends then; the host's other
 * tables see the same queue on their first pages, one a second. Returns the staleness of a change written just
 * after each sweep's window: it is carried by the next sweep's first page.
 */
function ceilingStaleness(lagMs: number, queueMs: (at: number) => number): number[] {
  let now = 0;
  // Pays the two tables at their ceiling (with the follow-ups of the prior change rate), little more.
  const scheduler = new PollScheduler(new FixedBudget(0.02), MAX, () => now);
  const [table, other] = [scheduler.add(FLOOR), scheduler.add(FLOOR)];
  scheduler.open();
  const staleness: number[] = [];
  let start = 10_000;
  let pageAt: number | null = null;
  let previousWindowEnd: number | null = null;
  for (; now < 3_600_000; now += 100) {
    if (now % 1000 === 0) other.delayed(queueMs(now));
    if (pageAt === null && now >= start) pageAt = start + queueMs(start);
    if (pageAt === null || now < pageAt) continue;
    table.delayed(now - start);
    if (previousWindowEnd !== null) staleness.push(now - previousWindowEnd);
    previousWindowEnd = start - lagMs;
    start = now + table.swept(false, now, previousWindowEnd);
    pageAt = null;
  }
  return staleness;
}

Deno.test("scheduler: the ceiling is a deadline: a change just after a sweep's window reaches the next sweep within it", () => {
  // A steady queue, and one with a 10 s spike every 7 s.
  for (const queue of [() => 8_000, (at: number) => (at % 7_000 >= 6_000 ? 12_000 : 2_000)]) {
    const staleness = ceilingStaleness(1_500, queue);
    assert(staleness.length > 25, `${staleness.length} sweeps`);
    assert(Math.max(...staleness) <= MAX, `staleness up to ${Math.max(...staleness)} ms, ceiling ${MAX} ms`);
  }
  // Without lag or queue the deadline is the interval's end, as before (the budget pays a little more).
  const plain = ceilingStaleness(0, () => 0);
  // (Within one step of the simulation: a first page is seen at the step after it came.)
  assert(plain.every((ms) => ms <= MAX + 100 && ms >= 0.9 * MAX), `${plain}`);
});

Deno.test("scheduler: a ceiling table polls no more often than the deadline needs, and a long stall does not make it a floor", () => {
  // Each poll is due the lag and one queue before the deadline: no earlier.
  const steady = ceilingStaleness(1_500, () => 8_000);
  assert(steady.every((ms) => ms >= MAX - 300), `${steady}`);
  // A stall of ten minutes in the queue: allowed for up to a quarter of the ceiling only.
  let now = 0;
  const budget = new FixedBudget(0.01); // pays the table at its ceiling
  const scheduler = new PollScheduler(budget, MAX, () => now);
  const table = scheduler.add(FLOOR);
  table.delayed(600_000);
  assertEquals(scheduler.delayMs, MAX / 4);
  now = 1_000;
  assert(table.swept(false, now, now) >= MAX * 3 / 4 - 1);
  // It is forgotten over about a ceiling.
  now += 5 * MAX;
  assert(scheduler.delayMs < 0.01 * MAX, `${scheduler.delayMs}`);
  // A budget that cannot pay the ceiling: polling sooner would only queue, so the ceiling is an interval again.
  budget.rate = 0.0001;
  table.delayed(20_000);
  now += 2_000;
  scheduler.reallocate(true);
  assertEquals(table.swept(false, now, now - 5_000), MAX);
});

Deno.test("scheduler: the allocation counts a table at its ceiling at the interval it really polls at", () => {
  let now = 0;
  // Pays the five tables at their ceiling, not at the shorter interval.
  const scheduler = new PollScheduler(new FixedBudget(0.05), MAX, () => now);
  const tables = Array.from({ length: 5 }, () => scheduler.add(FLOOR));
  scheduler.open();
  tables[0].delayed(10_000);
  now = 1_000;
  // Each sweep's window ended 2 s before the sweep did.
  for (let i = 0; i < 100; i++) tables[i % 5].swept(false, now, now - 2_000);
  scheduler.reallocate(true);
  const expected = scheduler.ceilingIntervalMs(tables[0]);
  assert(expected < MAX - 10_000 && expected > MAX - 13_000, `${expected}`);
  assertEquals(tables.map((t) => t.scheduledMs), tables.map(() => expected));
});

Deno.test("scheduler: a poll already pending follows a smaller budget at once, never past its deadline", () => {
  let now = 0;
  const budget = new FixedBudget(100); // pays every floor
  const scheduler = new PollScheduler(budget, MAX, () => now);
  const tables = Array.from({ length: 20 }, () => scheduler.add(FLOOR));
  scheduler.open();
  now = 1_000;
  const waits = tables.map((t) => t.swept(false, now, now - 1_000));
  assertEquals(waits, tables.map(() => FLOOR));
  // The window ends; the next affords a poll every 10 s for all 20 tables. The polls due now are put off.
  budget.rate = 0.1;
  now += FLOOR;
  const later = tables.map((t) => t.postponedTo(now));
  for (const [i, at] of later.entries()) {
    assert(at !== null && at > now, `table ${i} polls at ${at}`);
    // The windows of those sweeps ended at 0: the deadline is the ceiling after.
    assert(at <= tables[i].latestStartAt && at <= MAX, `table ${i} polls at ${at}`);
  }
  // Once put off, a poll is due when it says; a larger budget does not bring it back.
  now = later[0]!;
  budget.rate = 100;
  assertEquals(tables[0].postponedTo(now), null);
  // Before any sweep ended there is nothing to put off.
  assertEquals(scheduler.add(FLOOR).postponedTo(now), null);
});

Deno.test("catch-ups: a table counts from its start until a step reaches its mark, again when one stops short", () => {
  const budget = new FixedBudget(1);
  const scheduler = new PollScheduler(budget, MAX, () => 0);
  const a = scheduler.add(FLOOR);
  const b = scheduler.add(FLOOR);
  assertEquals(budget.catchUps, 0, "counted before the task opens");
  scheduler.open();
  assertEquals(budget.catchUps, 2);
  a.stepped(true);
  a.stepped(true);
  assertEquals(budget.catchUps, 1);
  a.stepped(false); // a backlog: the sweep stopped short of its mark
  b.stepped(true);
  assertEquals(budget.catchUps, 1);
  scheduler.close();
  assertEquals(budget.catchUps, 0, "the task's catch-ups left counted after it closed");
});
