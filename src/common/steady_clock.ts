/**
 * A clock for scheduling that a step of the host's wall clock (NTP, a VM resumed, an operator's `date -s`) does
 * not move: milliseconds since the epoch as of this thread's start, advanced by the monotonic clock since. Waits
 * computed from instants recorded on it never stall for the hour a step back would add, nor all fire at once
 * after a step forward. It is not the time of day: use it only for instants compared with each other.
 */
export function steadyNow(): number {
  return performance.timeOrigin + performance.now();
}
