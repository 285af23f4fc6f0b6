/**
 * When each idle table polls again: the poll interval moves between `svc.source.poll.interval.ms` (the floor) and
 * `svc.source.poll.interval.max.ms` (the ceiling) by the table's observed change rate, so that when the instance
 * host's request budget (rate_pacer.ts: a rate-limit rule, learned or configured) cannot poll every table at its
 * floor, the requests go to the tables that change. Without a known budget every table polls at its floor, as
 * before.
 *
 * The policy (a revisit policy, as web crawlers schedule revisits; Cho & Garcia-Molina, "Effective page refresh
 * policies", 2003): a table's changes are taken as a Poisson process of rate λ (estimated below). Polled every I
 * seconds, a change waits I/2 on average before a poll carries it to its topic; the staleness of changed rows,
 * summed over tables, is Σ λᵢ·Iᵢ/2. Minimised under a budget of Σ 1/Iᵢ = R polls per second, the Lagrangian
 * gives poll rates fᵢ = 1/Iᵢ proportional to √λᵢ: a table changing four times as often polls twice as often.
 * Cho & Garcia-Molina maximise the freshness of a copy instead, which starves pages that change faster than they
 * can be revisited; we capture every change, so a hot table gets more polls, only less than in proportion. Each
 * rate is then clamped to [1/ceiling, 1/floor] (water-filling: the rest is shared among the unclamped tables),
 * so a change in any table reaches its topic within the ceiling.
 *
 * A sweep that found changes sends its table's next poll at the floor at once (changes come in bursts, and the
 * follow-up poll measures the rate better); what those follow-ups cost (about one per change, at most one per
 * floor) is taken from the budget before the rest is shared. The budget is the host's: the rate the window can
 * still afford (its budget left over the time left) times this task's share of the host's polled tables.
 * What polls leave unspent stays in the window for backfills (the pacer's spacing follows the budget left).
 * A table is catching up from its start until a sweep reaches its high-water mark, and again whenever a sweep
 * stops short of it (a backlog, a backfill): the host's pacer counts it, and lets requests burst meanwhile.
 *
 * The change rate: exponentially weighted counts of sweeps that found changes and of the seconds they covered
 * (each sweep weighs `1 - DECAY` of the estimate), starting from a prior of one change per PRIOR_SECONDS.
 *
 * The ceiling is a deadline, not an interval: a change is only seen by a sweep whose high-water mark reaches its
 * second, and the first change a sweep leaves behind was written just after its mark (the instance clock, read
 * from `Date` headers truncated to the second, less the safety lag: up to a second or more before the sweep
 * started). Its next sweep then waits in the host's pacer queue before its request goes. So a table's next
 * sweep is due at the latest at (when its last sweep's window ended, on the local clock) + ceiling − the delay a
 * sweep's first page has lately taken (the pacer's queue and the request: a decaying maximum, at most a quarter
 * of the ceiling). Counting the ceiling from the sweep's end instead let a change wait the ceiling plus the lag,
 * the sweep, and the next sweep's queueing: 139 s against a ceiling of 90 s (docs/performance.md). The
 * allocation counts a table at its ceiling at the period it really polls at (the ceiling less that delay and
 * how long a sweep's window ends before the sweep does), so the budget it shares stays the one it spends. A
 * deadline shortens a ceiling by at most a quarter, and only while the budget pays every table at its ceiling:
 * otherwise polling sooner would only lengthen the pacer's queue, and the ceiling is an interval as before.
 */
import { steadyNow } from "../common/steady_clock.ts";

/** The host's request budget, as the scheduler needs it (RatePacer implements it). */
export interface PollBudget {
  /** Requests per second the window can still afford, or null when no budget is known. */
  pollRate(now: number): number | null;
  /** Counts tables polled against the host (negative: fewer). */
  registerTables(n: number): void;
  /** Counts tables catching up against the host (negative: fewer): their requests may burst (rate_pacer.ts). */
  registerCatchUps(n: number): void;
  /** Tables polled against the host by every task of the process. */
  readonly tables: number;
}

/** Weight of the estimate kept at each sweep (the new sweep weighs the rest). */
const DECAY = 0.8;
/** Prior: a table is taken to change about once in this many seconds until its sweeps say otherwise. */
const PRIOR_SECONDS = 3600;
/** Allocations are recomputed at most this often (the budget and the rates move slowly). */
const REALLOCATE_MS = 1000;
/**
 * A deadline shortens a ceiling by at most this share of it: a long stall, or a queue that more polls would only
 * lengthen, must not turn the ceiling into the floor.
 */
const MAX_DELAY_SHARE = 0.25;
/** Weight of the mean lead (window end → sweep end) kept at each sweep. */
const LEAD_DECAY = 0.95;
/**
 * The share of the pace (what the window can afford per second) that polls are planned to spend. The pacer
 * sends requests one per pacing interval: polls planned at the full pace queue there (0.1–0.4 s each in
 * bench/instance_budget.ts), and what they leave raises the pace later in the window, so it is not lost.
 */
const PLANNED_SHARE = 0.9;

export class PollScheduler {
  readonly #tables = new Set<ScheduledTable>();
  #allocatedAt = -Infinity;
  /** Tables counted in the host's budget (`open`), taken back by `close`. */
  #registered = 0;
  /** Tables of the task catching up, and how many of them the host's budget counts (`open`, `close`). */
  readonly #catchingUp = new Set<ScheduledTable>();
  #catchUpsRegistered = 0;
  /** A decaying maximum of the delay of sweeps' first pages (pacer queue and request), and when it was set. */
  #delayMs = 0;
  #delayAt = 0;
  /** Mean time from where a sweep's window ended (local clock) to the sweep's end. */
  #leadMs = 0;
  /**
   * Whether the last allocation's budget pays every table at its ceiling. When it does not, a deadline cannot be
   * kept by polling sooner (the pacer would only queue the polls): the ceiling is an interval again, as before.
   */
  #deadlinesKept = true;

  constructor(
    private readonly budget: PollBudget | null,
    readonly maxMs: number,
    private readonly now: () => number = steadyNow,
  ) {}

  /** A table polled at `floorMs` at the least. */
  add(floorMs: number): ScheduledTable {
    const table = new ScheduledTable(this, floorMs, Math.max(floorMs, this.maxMs), this.now());
    this.#tables.add(table);
    this.#catchingUp.add(table);
    return table;
  }

  /**
   * The task's tables start polling: they are counted among the host's polled tables (once every table was
   * added, so that a task whose start fails half-way leaves no count behind).
   */
  open(): void {
    const more = this.#tables.size - this.#registered;
    this.budget?.registerTables(more);
    this.#registered += more;
    this.#countCatchUps();
  }

  /** `table` is catching up (`on`), or its sweep reached its high-water mark. */
  catchingUp(table: ScheduledTable, on: boolean): void {
    if (on === this.#catchingUp.has(table)) return;
    if (on) this.#catchingUp.add(table);
    else this.#catchingUp.delete(table);
    if (this.#registered > 0) this.#countCatchUps();
  }

  /** The host's count of catch-ups follows this task's. */
  #countCatchUps(): void {
    const more = this.#catchingUp.size - this.#catchUpsRegistered;
    this.budget?.registerCatchUps(more);
    this.#catchUpsRegistered += more;
  }

  /** The task stops: its tables no longer share the host's budget. */
  close(): void {
    this.budget?.registerTables(-this.#registered);
    this.#registered = 0;
    this.budget?.registerCatchUps(-this.#catchUpsRegistered);
    this.#catchUpsRegistered = 0;
  }

  /**
   * A sweep's first page came `ms` after the sweep began (queued by the pacer, then the request). The delay
   * allowed for before a deadline is the largest seen lately: a new largest is held for one ceiling, then fades
   * over the next (smaller ones in between do not hold it).
   */
  delayed(ms: number): void {
    if (ms < this.delayMs) return;
    this.#delayMs = Math.min(this.maxMs * MAX_DELAY_SHARE, ms);
    this.#delayAt = this.now();
  }

  /** The delay to allow for before a table's deadline (ms). */
  get delayMs(): number {
    const hold = Math.max(1000, this.maxMs);
    return this.#delayMs * Math.exp(-Math.max(0, this.now() - this.#delayAt - hold) / hold);
  }

  /** A sweep ended `ms` after the instant its window ended (the lag, the clock's truncation, the sweep itself). */
  led(ms: number): void {
    this.#leadMs = this.#leadMs * LEAD_DECAY + Math.max(0, ms) * (1 - LEAD_DECAY);
  }

  /** The interval a table at its ceiling polls at, measured from its sweep's end: see the module comment. */
  ceilingIntervalMs(table: { floorMs: number; maxMs: number }): number {
    if (!this.#deadlinesKept) return table.maxMs;
    const shortened = Math.min(table.maxMs * MAX_DELAY_SHARE, this.delayMs + this.#leadMs);
    return Math.max(table.floorMs, Math.round(table.maxMs - shortened));
  }

  /** The latest start of a table's next sweep whose last one ended at `now`, its window at `windowEndedAt`. */
  deadline(table: { floorMs: number; maxMs: number }, now: number, windowEndedAt: number): number {
    if (!this.#deadlinesKept) return now + table.maxMs;
    const latest = windowEndedAt + table.maxMs - this.delayMs;
    return Math.max(now + table.floorMs, now + table.maxMs * (1 - MAX_DELAY_SHARE), latest);
  }

  /** Recomputes every table's scheduled interval from the budget and the change rates, at most once a second. */
  reallocate(force = false): void {
    const now = this.now();
    if (!force && now - this.#allocatedAt < REALLOCATE_MS) return;
    this.#allocatedAt = now;
    const tables = [...this.#tables];
    const rate = this.budget?.pollRate(now);
    if (rate === null || rate === undefined) {
      for (const t of tables) t.scheduledMs = t.floorMs;
      this.#deadlinesKept = true;
      return;
    }
    const share = rate * PLANNED_SHARE * tables.length / Math.max(tables.length, this.budget!.tables);
    this.#deadlinesKept = tables.reduce(
      (sum, t) => sum + 1000 / t.maxMs + Math.min(t.changeRate(), 1000 / t.floorMs),
      0,
    ) <= share;
    const intervals = allocateIntervals(
      tables.map((t) => ({
        changeRate: t.changeRate(),
        floorMs: t.floorMs,
        maxMs: this.ceilingIntervalMs(t),
      })),
      share,
    );
    tables.forEach((t, i) => t.scheduledMs = intervals[i]);
  }
}

/** One table's schedule: its change rate estimate and the interval it polls at. */
export class ScheduledTable {
  /** The interval the allocation gives the table (ms). */
  scheduledMs: number;
  /** The latest instant (local ms) the next sweep may start at for the ceiling to hold; set by `swept`. */
  latestStartAt = Infinity;
  /** Exponentially weighted sweeps that found changes, and seconds they covered (with the prior). */
  #changes = 1;
  #seconds = PRIOR_SECONDS;
  #lastSweepAt: number;
  #lastChanged = false;
  /** The wait `swept` gave (ms, from `#lastSweepAt`); null before a sweep ended. */
  #waitMs: number | null = null;

  constructor(
    private readonly scheduler: PollScheduler,
    readonly floorMs: number,
    readonly maxMs: number,
    startedAt: number,
  ) {
    this.scheduledMs = floorMs;
    this.#lastSweepAt = startedAt;
  }

  /** Estimated changes per second. */
  changeRate(): number {
    return this.#changes / this.#seconds;
  }

  /** The wait before the next poll: the floor after a sweep that found changes, else the scheduled interval. */
  get nextIntervalMs(): number {
    return this.#lastChanged ? this.floorMs : this.scheduledMs;
  }

  /**
   * A sweep ended at `now` (local ms); `changed`: it emitted rows; `windowEndedAt`: the local instant from which
   * changes were left to the next sweep (its high-water mark on the local clock; `now` when unknown). Returns the
   * wait before the next poll: the scheduled interval, or less when the ceiling's deadline comes first.
   */
  swept(changed: boolean, now: number, windowEndedAt = now): number {
    const seconds = Math.max(0.001, (now - this.#lastSweepAt) / 1000);
    this.#lastSweepAt = now;
    this.#changes = this.#changes * DECAY + (changed ? 1 : 0) * (1 - DECAY);
    this.#seconds = this.#seconds * DECAY + seconds * (1 - DECAY);
    this.#lastChanged = changed;
    this.scheduler.led(now - windowEndedAt);
    this.scheduler.reallocate();
    // The next sweep must have its first page by the window's end + the ceiling: it starts the delay before.
    this.latestStartAt = this.scheduler.deadline(this, now, windowEndedAt);
    this.#waitMs = Math.min(this.nextIntervalMs, this.latestStartAt - now);
    return this.#waitMs;
  }

  /** The wait before the next poll that `swept` gave, or `postponedTo` lengthened (ms); null before a sweep. */
  get waitMs(): number | null {
    return this.#waitMs;
  }

  /**
   * The poll came due at `now`. When the allocation has lengthened the table's interval since (a new window with
   * less to spend), returns the instant it is due at now (never past the deadline); else null. Pending polls
   * follow a new budget at once: at the end of a window with budget to spare every table polls at its floor, and
   * at the reset all those polls would go into the pacer's queue together (1.5–1.9 s in the 30× bench, which is
   * 45–57 s; with an hourly rule, 200 polls at a pacing interval of 0.28 s are 55 s).
   */
  postponedTo(now: number): number | null {
    if (this.#waitMs === null) return null;
    this.scheduler.reallocate();
    const wait = Math.min(this.nextIntervalMs, this.latestStartAt - this.#lastSweepAt);
    if (wait <= this.#waitMs || this.#lastSweepAt + wait <= now) return null;
    this.#waitMs = wait;
    return this.#lastSweepAt + wait;
  }

  /** The next sweep's first page came `ms` after the sweep began. */
  delayed(ms: number): void {
    this.scheduler.delayed(ms);
  }

  /** A step of the table's sweep reached its high-water mark (`caughtUp`), or stopped short of it. */
  stepped(caughtUp: boolean): void {
    this.scheduler.catchingUp(this, !caughtUp);
  }
}

export interface TableDemand {
  /** Estimated changes per second. */
  readonly changeRate: number;
  readonly floorMs: number;
  readonly maxMs: number;
}

/**
 * Poll intervals (ms) for tables sharing `budget` polls per second (see the module comment): follow-up polls
 * after changes are paid first, the rest goes as √λ, each rate clamped to [1/max, 1/floor]. A budget that cannot
 * pay every table's ceiling gives every table its ceiling (the pacer then spaces the requests).
 */
export function allocateIntervals(tables: readonly TableDemand[], budget: number): number[] {
  const floorRate = (t: TableDemand) => 1000 / t.floorMs;
  const maxRate = (t: TableDemand) => 1000 / t.maxMs;
  const followUps = tables.reduce((sum, t) => sum + Math.min(t.changeRate, floorRate(t)), 0);
  const left = budget - followUps;
  if (tables.reduce((sum, t) => sum + floorRate(t), 0) <= left) return tables.map((t) => t.floorMs);
  if (tables.reduce((sum, t) => sum + maxRate(t), 0) >= left) return tables.map((t) => t.maxMs);
  const rates = (k: number) =>
    tables.map((t) => Math.min(floorRate(t), Math.max(maxRate(t), k * Math.sqrt(t.changeRate))));
  const total = (k: number) => rates(k).reduce((a, b) => a + b, 0);
  // total(k) grows with k; find the k that spends `left` by bisection.
  let low = 0;
  let high = 1;
  while (total(high) < left && high < 1e12) high *= 2;
  for (let i = 0; i < 50; i++) {
    const mid = (low + high) / 2;
    if (total(mid) < left) low = mid;
    else high = mid;
  }
  return rates(low).map((rate) => Math.round(1000 / rate));
}
