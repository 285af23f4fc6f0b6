/** Names in generated Avro and Protobuf schemas, which both allow `[A-Za-z_][A-Za-z0-9_]*` for each part. */
import { DataException } from "../errors.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Returns `name`; throws `DataException` (e.g. "Illegal Avro field name: ...") for a name the format refuses. */
export function checkName(name: string, format: "Avro" | "Protobuf", what: string): string {
  if (!NAME.test(name)) throw new DataException(`Illegal ${format} ${what} name: ${JSON.stringify(name)}`);
  return name;
}

/** A full name split at its last dot: the namespace (null without a dot) and the simple name. */
export function splitName(fullName: string): [string | null, string] {
  const dot = fullName.lastIndexOf(".");
  return dot < 0 ? [null, fullName] : [fullName.slice(0, dot), fullName.slice(dot + 1)];
}
