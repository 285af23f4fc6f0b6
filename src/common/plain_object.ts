/**
 * True for a plain JS object: a `{}` literal, an object that JSON or YAML parsing made, or `Object.create(null)`;
 * not an array, a `Map`, a `Date` or another class's instance. The config file, the REST bodies, the stored
 * offsets and schemaless Connect data (the stand-in for a Java Map) all check their maps with it.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
