/**
 * Minimal assertions for tests (deno std is not reachable here). Messages show both sides.
 */
export class AssertionError extends Error {
  override name = "AssertionError";
}

export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  if (!deepEqual(actual, expected)) {
    throw new AssertionError(
      `${message ? message + "\n" : ""}values are not equal\n  actual:   ${show(actual)}\n  expected: ${
        show(expected)
      }`,
    );
  }
}

export function assertNotEquals<T>(actual: T, expected: T, message?: string): void {
  if (deepEqual(actual, expected)) throw new AssertionError(message ?? `values are equal: ${show(actual)}`);
}

export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  if (!pattern.test(actual)) throw new AssertionError(message ?? `${show(actual)} does not match ${pattern}`);
}

export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  if (!actual.includes(expected)) {
    throw new AssertionError(message ?? `${show(actual)} does not include ${show(expected)}`);
  }
}

export function assertThrows(
  fn: () => unknown,
  errorClass?: abstract new (...args: any[]) => Error,
  includes?: string,
): Error {
  try {
    fn();
  } catch (e) {
    checkError(e, errorClass, includes);
    return e as Error;
  }
  throw new AssertionError("expected the function to throw");
}

export async function assertRejects(
  fn: () => Promise<unknown>,
  errorClass?: abstract new (...args: any[]) => Error,
  includes?: string,
): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    checkError(e, errorClass, includes);
    return e as Error;
  }
  throw new AssertionError("expected the promise to reject");
}

function checkError(
  e: unknown,
  errorClass?: abstract new (...args: any[]) => Error,
  includes?: string,
): void {
  if (errorClass && !(e instanceof errorClass)) {
    throw new AssertionError(
      `expected ${errorClass.name}, got ${(e as Error)?.name}: ${(e as Error)?.message}`,
    );
  }
  if (includes && !String((e as Error)?.message).includes(includes)) {
    throw new AssertionError(
      `error message ${show((e as Error)?.message)} does not include ${show(includes)}`,
    );
  }
}

function show(v: unknown): string {
  try {
    return Deno.inspect(v, { depth: 6, colors: false });
  } catch {
    return String(v);
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !deepEqual(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => b.has(x));
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as any)[k], (b as any)[k]));
}
