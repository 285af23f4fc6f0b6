/**
 * V8 flags the daemon runs with: embedded into the executable by `deno task compile` (V8 reads them when each
 * isolate is created, so they cannot be set from inside a running daemon for its workers), and passed by the
 * benchmarks that start the daemon from source.
 *
 * `--max-semi-space-size=1` (MB): each isolate's young generation stays small instead of growing to 16 MB a
 * semi-space (three of them per isolate, three isolates per source task). Measured on a 100,000-row backfill:
 * peak RSS 485 MB instead of 610 and idle 291 instead of 566 (with the native memory tuning,
 * native_memory.ts), for about 0.5 CPU s more per 100,000 rows; see docs/performance.md.
 */
export const DAEMON_V8_FLAGS: readonly string[] = ["--max-semi-space-size=1"];
