/** A field on its way into a request body: its current name, its schema (null when schemaless) and value. */
import type { Schema } from "../../connect/schema.ts";

export interface BodyField {
  readonly name: string;
  readonly schema: Schema | null;
  readonly value: unknown;
}

/** Names that appear more than once, in first-seen order. */
export function duplicateNames(fields: readonly BodyField[]): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { name } of fields) {
    if (seen.has(name)) duplicates.add(name);
    seen.add(name);
  }
  return [...duplicates];
}
