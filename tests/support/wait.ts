/**
 * The one wait of the tests: polls a check until it gives a value, bounded so that a broken condition fails with
 * what was awaited instead of hanging. The bound is a guard, never a timing assertion. Beside it the one plain
 * pause, `sleep`, for a test that must let time pass (a fault that lasts, load that runs), never to wait for a
 * condition.
 *
 * ```ts
 * const status = await waitFor(async () => (await getStatus()).state === "RUNNING" && status, 60_000, "RUNNING");
 * await waitFor(() => seen.length === 6, 30_000, "6 records");
 * ```
 */

/** Polls `check` every 100 ms until it returns a truthy value, which it returns; throws with the last value after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 60_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | null | undefined | false;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; last value: ${Deno.inspect(last)}`);
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
