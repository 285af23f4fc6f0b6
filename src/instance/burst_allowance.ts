/**
 * The burst allowance of a rate-limit window (rate_pacer.ts): how far a catch-up, a backfill or a reconcile pass
 * may run ahead of the window's even pace. Pacing spreads a window's budget evenly to its reset, so a catch-up
 * of many tables waits its turn one request at a time while most of the hour's budget lies unspent; early in a
 * window that budget can be spent at once as long as what is left still pays a share of what the rest of the
 * window needs at the even pace (the burst reserve, `svc.http.rate.limit.reserve`), which keeps room for the
 * polls of the rest of the window and for the other integrations of the same user.
 */

/** What `burstAllowance` weighs: the budget left and the window's even pace, on the local clock (ms). */
export interface BurstState {
  /** This process's budget not yet sent, less the reserve of a tenth. */
  left: number;
  /** The budget left when the window was learned, which the even pace spreads from `startAt` to `resetAt`. */
  evenBudget: number;
  startAt: number;
  resetAt: number;
  now: number;
  /** The burst reserve (0..1): the share of the rest of the window's even need a burst leaves unspent. */
  reserve: number;
}

/**
 * Requests a burst may still send at `now`: the budget left above `reserve` times what the rest of the window
 * needs at its even pace (the even budget over the window's span, times the time left). At the window's start
 * that is `(1 - reserve)` of its budget; what a burst spends lowers the pace of the rest of the window, until it
 * is `reserve` of the even pace and bursts stop. Never more than the budget left: the tenth held back stays.
 */
export function burstAllowance(b: BurstState): number {
  const span = Math.max(1, b.resetAt - b.startAt);
  const rest = Math.min(1, Math.max(0, b.resetAt - b.now) / span);
  return Math.floor(Math.min(b.left, b.left - b.reserve * b.evenBudget * rest));
}
