/**
 * V8 flags the daemon runs with: embedded into the executable by `deno task compile` (V8 reads them when each
 * isolate is created, so they cannot be set from inside a running daemon for its task threads), and passed by the
 * benchmarks that start the daemon from source.
 *
 * `--max-semi-space-size=4` (MB): each isolate's young generation stays small instead of growing to 16 MB a
 * semi-space (three isolates per source task). Measured on a 100,000-row backfill with the native memory tuning
 * (native_memory.ts): peak RSS 489 MB against 610 with V8's default, at the same CPU per row; 1 MB gave the same
 * peak for about 0.6 CPU s more per 100,000 rows. See docs/performance.md.
 *
 * `--heap-growing-percent=100`: after a full collection the old generation may grow to twice what survived
 * before the next one, where V8 otherwise lets it grow up to four times when collecting looks cheap. A backfill's
 * rows and records survive a few young collections and die old, so the old generation is mostly garbage: measured
 * on the same backfill (page slices, in-thread producer), peak 295 MB against 430 (one table) and 347 against 476
 * (five tables), for 1.8–3.0 CPU s more per 100,000 rows on a loaded machine. `--optimize-for-size` got the peak
 * to 231–254 MB but more than doubled the CPU; `--heap-growing-percent=50`, 277 MB for 40 % more CPU.
 *
 * `--expose-gc-as`: a task's isolate collects once when it goes quiet after a burst of work
 * (src/runtime/task/idle_collection.ts), so a finished backfill's garbage does not stay resident while the task idles.
 */

import { COLLECT_GARBAGE_NAME } from "../common/gc_global.ts";

export const DAEMON_V8_FLAGS: readonly string[] = [
  "--max-semi-space-size=4",
  "--heap-growing-percent=100",
  `--expose-gc-as=${COLLECT_GARBAGE_NAME}`,
];
