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
      withContext(
        message,
        `values are not equal\n  actual:   ${show(actual)}\n  expected: ${show(expected)}`,
      ),
    );
  }
}

/** The very same value (`Object.is`): for an object, the same instance, not an equal copy. */
export function assertStrictEquals<T>(actual: T, expected: T, message?: string): void {
  if (!Object.is(actual, expected)) {
    const detail = deepEqual(actual, expected)
      ? "equal values but not the same instance"
      : "values are not the same";
    throw new AssertionError(
      withContext(message, `${detail}\n  actual:   ${show(actual)}\n  expected: ${show(expected)}`),
    );
  }
}

export function assertNotEquals<T>(actual: T, expected: T, message?: string): void {
  if (deepEqual(actual, expected)) {
    throw new AssertionError(withContext(message, `values are equal: ${show(actual)}`));
  }
}

export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  if (!pattern.test(actual)) {
    throw new AssertionError(withContext(message, `${show(actual)} does not match ${pattern}`));
  }
}

export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  if (!actual.includes(expected)) {
    throw new AssertionError(withContext(message, `${show(actual)} does not include ${show(expected)}`));
  }
}

/** What a thrown error must be: an instance of `errorClass`, its message including a string or matching a RegExp. */
type ErrorClass = abstract new (...args: any[]) => Error;

/** Runs `fn` and returns the error it throws; fails if it returns, or if the error is not what is expected. */
export function assertThrows(
  fn: () => unknown,
  errorClass?: ErrorClass,
  messagePattern?: string | RegExp,
  message?: string,
): Error {
  try {
    fn();
  } catch (e) {
    checkError(e, errorClass, messagePattern, message);
    return e as Error;
  }
  throw new AssertionError(withContext(message, "expected the function to throw"));
}

/** Awaits `fn` and returns the error it rejects with; fails if it resolves, or if the error is not what is expected. */
export async function assertRejects(
  fn: () => Promise<unknown>,
  errorClass?: ErrorClass,
  messagePattern?: string | RegExp,
  message?: string,
): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    checkError(e, errorClass, messagePattern, message);
    return e as Error;
  }
  throw new AssertionError(withContext(message, "expected the promise to reject"));
}

function checkError(
  e: unknown,
  errorClass: ErrorClass | undefined,
  messagePattern: string | RegExp | undefined,
  message: string | undefined,
): void {
  if (errorClass && !(e instanceof errorClass)) {
    throw new AssertionError(
      withContext(
        message,
        `expected ${errorClass.name}, got ${(e as Error)?.name}: ${(e as Error)?.message}`,
      ),
    );
  }
  if (messagePattern === undefined) return;
  const text = String((e as Error)?.message);
  const ok = typeof messagePattern === "string" ? text.includes(messagePattern) : messagePattern.test(text);
  if (!ok) {
    throw new AssertionError(
      withContext(
        message,
        `error message ${show(text)} does not ${typeof messagePattern === "string" ? "include" : "match"} ${
          typeof messagePattern === "string" ? show(messagePattern) : messagePattern
        }`,
      ),
    );
  }
}

function withContext(message: string | undefined, detail: string): string {
  return message ? `${message}\n${detail}` : detail;
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
