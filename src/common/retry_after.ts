/**
 * The `Retry-After` response header: either delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
 */

/**
 * The delay the header asks for, in milliseconds, or null when absent or unparseable. An HTTP-date is
 * measured against the response's own `Date` header when there is one (so clock skew between us and the
 * instance does not matter), otherwise against `now`. A date in the past means "retry now" (0).
 */
export function parseRetryAfter(
  value: string | null,
  responseDate: string | null,
  now: number = Date.now(),
): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return null;
  const reference = responseDate === null ? NaN : Date.parse(responseDate);
  return Math.max(0, at - (Number.isNaN(reference) ? now : reference));
}
