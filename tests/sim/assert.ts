/** Assertions for the simulator tests (node:assert, since deno std is not reachable here). */
import assert from "node:assert/strict";

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  assert.deepStrictEqual(actual, expected, message ?? "values differ");
}

export function assert_(condition: unknown, message?: string): asserts condition {
  assert.ok(condition, message ?? "assertion failed");
}

export { assert_ as assert };

export async function assertRejects(fn: () => Promise<unknown>, message?: string): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new assert.AssertionError({ message: message ?? "expected a rejection" });
}
