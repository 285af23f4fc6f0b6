/**
 * The row a record's key addresses: a String key is the sys id itself; a Struct or Map key carries it in
 * `svc.sink.sys.id.key.field` (`sys_id` by default, `sysId` for keys written by another vendor's connector).
 * A null key addresses no row.
 */
import { describeValueType, isConnectMap, Struct } from "../connect/struct.ts";
import { type ConnectMap, mapGet } from "../connect/values.ts";
import { MappingError } from "./record_error.ts";

export function sysIdFromKey(key: unknown, keyField: string): string | null {
  if (key === null || key === undefined) return null;
  if (typeof key === "string") return checked(key, "the String key");
  if (key instanceof Struct) {
    if (key.schema.field(keyField) === null) {
      throw new MappingError(`the Struct key has no field "${keyField}" (svc.sink.sys.id.key.field)`);
    }
    return fromField(key.get(keyField), keyField, "Struct");
  }
  if (isConnectMap(key)) {
    const value = mapGet(key as ConnectMap, keyField);
    if (value === undefined) {
      throw new MappingError(`the Map key has no entry "${keyField}" (svc.sink.sys.id.key.field)`);
    }
    return fromField(value, keyField, "Map");
  }
  throw new MappingError(
    `the record key is a ${describeValueType(key)}; a key is a String sys id, or a Struct or Map holding one`,
  );
}

function fromField(value: unknown, keyField: string, kind: string): string | null {
  // A keyed record whose id field is null is treated like an unkeyed one: there is no row to address yet.
  if (value === null) return null;
  if (typeof value !== "string") {
    throw new MappingError(
      `the ${kind} key's "${keyField}" is a ${describeValueType(value)}, not a String sys id`,
    );
  }
  return checked(value, `the ${kind} key's "${keyField}"`);
}

function checked(sysId: string, what: string): string {
  const trimmed = sysId.trim();
  if (trimmed === "") throw new MappingError(`${what} is empty; it must be the row's sys id`);
  return trimmed;
}
