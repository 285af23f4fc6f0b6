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
