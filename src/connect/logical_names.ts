/**
 * The schema names of Connect's built-in logical types. Kept apart from logical.ts so that value validation
 * (struct.ts) can recognise logical types without importing the builders, which would form an import cycle.
 */
export const DECIMAL_LOGICAL_NAME = "org.apache.kafka.connect.data.Decimal";
export const DATE_LOGICAL_NAME = "org.apache.kafka.connect.data.Date";
export const TIME_LOGICAL_NAME = "org.apache.kafka.connect.data.Time";
export const TIMESTAMP_LOGICAL_NAME = "org.apache.kafka.connect.data.Timestamp";

/** The three temporal logical names, whose values are JS `Date`s. */
export const TEMPORAL_LOGICAL_NAMES: ReadonlySet<string> = new Set([
  DATE_LOGICAL_NAME,
  TIME_LOGICAL_NAME,
  TIMESTAMP_LOGICAL_NAME,
]);
