import { assert, assertEquals } from "../support/assert.ts";
import { tuneNativeMemory } from "../../src/daemon/native_memory.ts";

const glibc = Deno.build.os === "linux" && (() => {
  try {
    Deno.dlopen("libc.so.6", { malloc_trim: { parameters: ["usize"], result: "i32" } }).close();
    return true;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "native memory: glibc is tuned and trimmed, and the trim stops when asked",
  ignore: !glibc,
  async fn() {
    const stop = tuneNativeMemory({ trimEveryMs: 10 });
    assert(stop !== null, "glibc is present, so it is tuned");
    // Large buffers made and dropped while the trim runs: nothing may break (allocation keeps working).
    for (let i = 0; i < 20; i++) new Uint8Array(4 * 1024 * 1024).fill(i);
    await new Promise((r) => setTimeout(r, 50));
    const after = new Uint8Array(1024 * 1024).fill(7);
    assertEquals(after[after.length - 1], 7);
    stop();
  },
});

Deno.test("native memory: without a periodic trim nothing keeps running", () => {
  const stop = tuneNativeMemory({ trimEveryMs: 0 });
  assertEquals(stop === null || typeof stop === "function", true);
  stop?.();
});
