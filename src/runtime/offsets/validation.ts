/**
 * Checks that partitions and offsets have the shape Kafka Connect accepts (OffsetUtils.validateFormat):
 * a JSON object with string keys whose values are primitives (string, number, boolean or null).
 * Nested objects and arrays are refused because Connect refuses them, and a value JSON cannot carry
 * (NaN, Infinity, bigint, undefined, functions) is refused because it would not round-trip.
 */
import type { OffsetPrimitive, SourcePartition } from "../../connect/record.ts";
import { isPlainObject } from "../../common/plain_object.ts";

/** A partition or offset that Connect would refuse. The REST layer answers it with 400. */
export class InvalidOffsetError extends Error {
  override name = "InvalidOffsetError";
}

/** What is being checked, for the message: e.g. `source partition of connector "jira"`. */
export type OffsetMapRole = "source partition" | "source offset";

/** The reason a value is not an allowed primitive, or null when it is one. */
function primitiveProblem(value: unknown): string | null {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : `the non-finite number ${value}`;
  if (Array.isArray(value)) return "an array";
  return `a value of type ${typeof value}`;
}

/** Throws InvalidOffsetError unless `value` is a JSON object of primitive values. */
export function validateOffsetMap(
  value: unknown,
  role: OffsetMapRole,
  connector: string,
): asserts value is Readonly<Record<string, OffsetPrimitive>> {
  const where = `${role} of connector "${connector}"`;
  if (!isPlainObject(value)) {
    const got = value === null
      ? "null"
      : Array.isArray(value)
      ? "an array"
      : `a value of type ${typeof value}`;
    throw new InvalidOffsetError(`The ${where} must be a JSON object, got ${got}`);
  }
  for (const [field, fieldValue] of Object.entries(value)) {
    const problem = primitiveProblem(fieldValue);
    if (problem !== null) {
      throw new InvalidOffsetError(
        `The ${where} may only contain primitive values (string, number, boolean, null), ` +
          `but field "${field}" contains ${problem}`,
      );
    }
  }
}

/** Validates one update: the partition always, the offset unless it is a tombstone (null). */
export function validateUpdate(
  connector: string,
  partition: unknown,
  offset: unknown,
): asserts partition is SourcePartition {
  if (typeof connector !== "string" || connector === "") {
    throw new InvalidOffsetError(
      `The connector name must be a non-empty string, got ${JSON.stringify(connector)}`,
    );
  }
  validateOffsetMap(partition, "source partition", connector);
  if (offset !== null) validateOffsetMap(offset, "source offset", connector);
}
