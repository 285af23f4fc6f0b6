/**
 * V8 flags the daemon runs with: embedded into the executable by `deno task compile` (V8 reads them when each
 * isolate is created, so they cannot be set from inside a running daemon for its workers), and passed by the
 * benchmarks that start the daemon from source.
 *
 * `--max-semi-space-size=4` (MB): each isolate's young generation stays small instead of growing to 16 MB a
 * semi-space (three isolates per source task). Measured on a 100,000-row backfill with the native memory tuning
 * (native_memory.ts): peak RSS 489 MB against 610 with V8's default, at the same CPU per row; 1 MB gave the same
 * peak for about 0.6 CPU s more per 100,000 rows. See docs/performance.md.
 */
export const DAEMON_V8_FLAGS: readonly string[] = ["--max-semi-space-size=4"];
