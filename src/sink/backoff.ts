/** Waits between resends of an ambiguous create: exponential ceilings with full jitter, ending early on abort. */
import type { ResendSettings } from "./settings.ts";

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The wait before resend number `resend` (1 = the first resend). */
export function resendDelay(
  resend: number,
  settings: ResendSettings,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(settings.maxBackoffMs, settings.initialBackoffMs * 2 ** Math.min(resend - 1, 30));
  return Math.floor(random() * ceiling);
}

export const abortableSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
