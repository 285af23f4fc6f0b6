/**
 * Keeps the C heap (glibc malloc) from holding on to memory the daemon has freed. V8 keeps ArrayBuffers (response
 * bodies, converted record bytes, packed batches: megabytes per page) in malloc'd memory; with a thread per task
 * and per producer, glibc gives each thread an arena of its own, raises its mmap threshold after each large free
 * (so later pages come from the arenas) and returns little of it: measured, resident memory stayed at its peak
 * after a backfill. Here, at start-up of the main thread (the setting is process-wide, so every task thread gets it):
 *   - large blocks (>= `mmapThresholdBytes`) always come from mmap and go back to the OS when freed;
 *   - at most `arenas` arenas;
 *   - every `trimEveryMs`, `malloc_trim(0)` hands free pages inside the arenas back.
 * Only on glibc (through FFI); elsewhere (musl, macOS, Windows, no FFI permission) nothing happens.
 */
export interface NativeMemoryOptions {
  /** Allocations from this size on are mmapped. Default 128 KiB (glibc's own starting value, kept fixed). */
  readonly mmapThresholdBytes?: number;
  /** Most malloc arenas. Default 2. */
  readonly arenas?: number;
  /** How often free arena memory is returned to the OS; 0 = never. Default 2000. */
  readonly trimEveryMs?: number;
}

// mallopt parameter numbers, from glibc's malloc.h.
const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;
const M_ARENA_MAX = -8;

/** Stops the periodic trim (the malloc settings stay). */
export type StopTrimming = () => void;

/** Returns a stopper when glibc was tuned; null when this platform has no glibc (nothing changed). */
export function tuneNativeMemory(options: NativeMemoryOptions = {}): StopTrimming | null {
  if (Deno.build.os !== "linux") return null;
  let libc;
  try {
    libc = Deno.dlopen(
      "libc.so.6",
      {
        mallopt: { parameters: ["i32", "i32"], result: "i32" },
        malloc_trim: { parameters: ["usize"], result: "i32" },
      } as const,
    );
  } catch {
    return null; // not glibc, or no FFI permission
  }
  const threshold = options.mmapThresholdBytes ?? 128 * 1024;
  libc.symbols.mallopt(M_MMAP_THRESHOLD, threshold);
  libc.symbols.mallopt(M_TRIM_THRESHOLD, threshold);
  libc.symbols.mallopt(M_ARENA_MAX, options.arenas ?? 2);
  const every = options.trimEveryMs ?? 2000;
  if (every <= 0) return () => {};
  const timer = setInterval(() => libc.symbols.malloc_trim(0n), every);
  // Trimming must never keep the daemon alive.
  Deno.unrefTimer(timer as unknown as number);
  return () => clearInterval(timer);
}
