/**
 * Builds `sysparm_query` encoded queries. Our own builder: the simulator parses queries with an independent
 * implementation on purpose.
 *
 * Precedence matters: `^OR` binds tighter than `^`, and `^NQ` ORs everything before it with everything after
 * it. A condition added to a query that contains `^NQ` must therefore be added to every NQ group, or it would
 * constrain only the last one (table-api.md §2.2). `and` does that.
 */

/** Operators the connectors use. `ISEMPTY`/`ISNOTEMPTY` take no value; `IN`/`NOT IN` take a list. */
export type Operator =
  | "="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "STARTSWITH"
  | "ENDSWITH"
  | "LIKE"
  | "NOT LIKE"
  | "IN"
  | "NOT IN"
  | "ISEMPTY"
  | "ISNOTEMPTY";

const FIELD = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/;

/** One condition, e.g. `condition("sys_updated_on", ">=", "2024-01-01 00:00:00")`. */
export function condition(field: string, op: Operator, value?: string | readonly string[]): string {
  if (!FIELD.test(field)) throw new RangeError(`not a field name for an encoded query: "${field}"`);
  if (op === "ISEMPTY" || op === "ISNOTEMPTY") return `${field}${op}`;
  if (value === undefined) throw new RangeError(`operator ${op} needs a value`);
  const values = typeof value === "string" ? [value] : [...value];
  if ((op === "IN" || op === "NOT IN") !== (typeof value !== "string")) {
    throw new RangeError(`operator ${op} ${op.endsWith("IN") ? "needs a list" : "takes a single value"}`);
  }
  for (const v of values) {
    // No escape for these exists in the encoded query syntax; they would split the query.
    if (/[\^\r\n]/.test(v) || (typeof value !== "string" && v.includes(","))) {
      throw new RangeError(`value cannot be expressed in an encoded query: ${JSON.stringify(v)}`);
    }
  }
  return `${field}${op}${values.join(",")}`;
}

/**
 * Rows strictly after the keyset cursor (timestamp, id): `ts > T OR (ts = T AND id > I)`, written as
 * `ts>=T^ts>T^ORid>I`, which is `ts>=T AND (ts>T OR id>I)` under the encoded query precedence.
 */
export function keysetAfter(timestampField: string, timestamp: string, idField: string, id: string): string {
  return [
    condition(timestampField, ">=", timestamp),
    `${condition(timestampField, ">", timestamp)}^OR${condition(idField, ">", id)}`,
  ].join("^");
}

/**
 * Rows at or before the keyset cursor (timestamp, id): `ts < T OR (ts = T AND id <= I)`, written as
 * `ts<=T^ts<T^ORid<=I`: the inclusive upper bound of a window that ends inside one second.
 */
export function keysetAtOrBefore(
  timestampField: string,
  timestamp: string,
  idField: string,
  id: string,
): string {
  return [
    condition(timestampField, "<=", timestamp),
    `${condition(timestampField, "<", timestamp)}^OR${condition(idField, "<=", id)}`,
  ].join("^");
}

/** A Date as an encoded query datetime literal, `yyyy-MM-dd HH:mm:ss` in UTC (what the instance compares). */
export function utcLiteral(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/** True when the query contains an ORDERBY/ORDERBYDESC term (not allowed in a source's base query). */
export function containsOrderBy(query: string): boolean {
  // A term starts the query or follows `^` (or `^NQ`); `^OR` cannot precede ORDERBY.
  return /(?:^|\^)(?:NQ)?ORDERBY/.test(query);
}

export class EncodedQuery {
  private constructor(
    private readonly groups: readonly string[],
    private readonly order: readonly string[],
  ) {}

  /** An empty query (every row). */
  static all(): EncodedQuery {
    return new EncodedQuery([], []);
  }

  /**
   * A user's base query, split into its NQ groups. A trailing `^EQ` (left by queries copied from the UI) is
   * dropped; ORDERBY terms are refused: the caller orders the rows itself.
   */
  static parse(base: string): EncodedQuery {
    const trimmed = base.trim().replace(/\^EQ$/, "");
    if (containsOrderBy(trimmed)) throw new RangeError("a base query must not contain ORDERBY");
    const groups = trimmed.split("^NQ").map((g) => g.replace(/^\^+|\^+$/g, "")).filter((g) => g !== "");
    return new EncodedQuery(groups, []);
  }

  /** ANDs `terms` (each a condition or an `^OR` chain) into every NQ group. */
  and(...terms: string[]): EncodedQuery {
    const extra = terms.filter((t) => t !== "");
    if (extra.length === 0) return this;
    const suffix = extra.join("^");
    const groups = this.groups.length === 0 ? [suffix] : this.groups.map((g) => `${g}^${suffix}`);
    return new EncodedQuery(groups, this.order);
  }

  /** Adds a sort key; the first added is the primary one. */
  orderBy(field: string, direction: "asc" | "desc" = "asc"): EncodedQuery {
    if (!FIELD.test(field)) throw new RangeError(`not a field name for ORDERBY: "${field}"`);
    return new EncodedQuery(this.groups, [
      ...this.order,
      `${direction === "desc" ? "ORDERBYDESC" : "ORDERBY"}${field}`,
    ]);
  }

  toString(): string {
    return [this.groups.join("^NQ"), ...this.order].filter((part) => part !== "").join("^");
  }
}
