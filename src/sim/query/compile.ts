/**
 * Turns a parsed encoded query into predicates over a table's rows. Unknown fields are handled as the
 * instance does: the term is dropped (the rest still applies) unless glide.invalid_query.returns_no_rows
 * is on, in which case the query matches nothing.
 */
import { formatGlideDateTime, parseGlideDateTime } from "../glide_time.ts";
import type { Database } from "../store/database.ts";
import type { ColumnReader, RowSource } from "../store/row_source.ts";
import { compareBinary, compareNumber, compareText, kindOf, type ValueKind } from "./compare.ts";
import { evaluateDateScript, evaluateStringScript, type ScriptContext } from "./js_dates.ts";
import type { Condition, ParsedQuery } from "./parser.ts";

export type RowTest = (row: number) => boolean;

/** Bounds on the indexed timestamp that a group implies (epoch seconds). */
export interface TimeRange {
  low: number;
  lowInclusive: boolean;
  high: number;
  highInclusive: boolean;
}

export interface CompiledGroup {
  test: RowTest;
  /** Set when the group constrains the source's (sys_updated_on, sys_id) index field. */
  range?: TimeRange;
}

export interface CompiledOrderKey {
  field: string;
  descending: boolean;
  reader: ColumnReader;
  /** Sort key of a row (numbers for numeric/time kinds, strings otherwise). */
  key: (row: number) => number | string;
}

export interface CompiledQuery {
  /** OR-ed groups; a query without conditions has one group that matches everything. */
  groups: CompiledGroup[];
  orderBy: CompiledOrderKey[];
  /** Terms dropped because they name unknown fields or are not conditions. */
  droppedTerms: string[];
  matchNothing: boolean;
}

export interface CompileContext extends ScriptContext {
  db: Database;
  invalidQueryReturnsNoRows: boolean;
}

interface Typed {
  kind: ValueKind;
  /** Comparable value of a row; NaN/"" when empty. */
  value: (row: number) => number | string;
  literal: (text: string) => number | string;
  compare: (a: number | string, b: number | string) => number;
  isEmpty: (row: number) => boolean;
  /** Lower-cased text of the value, for LIKE/STARTSWITH/ENDSWITH. */
  text: (row: number) => string;
}

function typed(reader: ColumnReader, ctx: CompileContext): Typed {
  const kind = kindOf(reader.def.type);
  const get = reader.get;
  const isEmpty = (row: number) => get(row) === "";
  const text = (row: number) => get(row).toLowerCase();
  switch (kind) {
    case "number":
      return {
        kind,
        value: (row) => (get(row) === "" ? NaN : Number(get(row))),
        literal: (t) => (t.trim() === "" ? NaN : Number(t)),
        compare: (a, b) => compareNumber(a as number, b as number),
        isEmpty,
        text,
      };
    case "time": {
      const secs = reader.seconds ?? ((row: number) => parseGlideDateTime(get(row)));
      return {
        kind,
        value: secs,
        literal: (t) => evaluateDateScript(t, ctx) ?? parseGlideDateTime(t.trim()),
        compare: (a, b) => compareNumber(a as number, b as number),
        isEmpty: (row) => Number.isNaN(secs(row)),
        text: (row) => formatGlideDateTime(secs(row)).toLowerCase(),
      };
    }
    case "binary":
      return {
        kind,
        value: get,
        literal: (t) => evaluateStringScript(t, ctx) ?? t,
        compare: (a, b) => compareBinary(a as string, b as string),
        isEmpty,
        text,
      };
    default:
      return {
        kind,
        value: (row) => get(row).toLowerCase(),
        literal: (t) => (evaluateStringScript(t, ctx) ?? t).toLowerCase(),
        compare: (a, b) => compareText(a as string, b as string),
        isEmpty,
        text,
      };
  }
}

const isMissing = (v: number | string) => typeof v === "number" && Number.isNaN(v);

/** Compiles one condition; undefined when it names an unknown field. */
function compileCondition(c: Condition, source: RowSource, ctx: CompileContext): RowTest | undefined {
  const reader = ctx.db.reader(source, c.field);
  if (!reader) return undefined;
  const t = typed(reader, ctx);
  const ordered = (accept: (cmp: number) => boolean): RowTest => {
    const lit = t.literal(c.value);
    if (isMissing(lit)) return () => false;
    return (row) => !t.isEmpty(row) && accept(t.compare(t.value(row), lit));
  };
  const fieldOperand = (): ((row: number) => number | string) | undefined => {
    const other = ctx.db.reader(source, c.value);
    return other ? typed(other, ctx).value : undefined;
  };
  const needle = c.value.toLowerCase();
  switch (c.operator) {
    case "=":
      if (c.value === "") return t.isEmpty;
      return ordered((cmp) => cmp === 0);
    case "!=": {
      if (c.value === "") return (row) => !t.isEmpty(row);
      const lit = t.literal(c.value);
      if (isMissing(lit)) return (row) => !t.isEmpty(row);
      return (row) => !t.isEmpty(row) && t.compare(t.value(row), lit) !== 0;
    }
    case ">":
      return ordered((cmp) => cmp > 0);
    case ">=":
      return ordered((cmp) => cmp >= 0);
    case "<":
      return ordered((cmp) => cmp < 0);
    case "<=":
      return ordered((cmp) => cmp <= 0);
    case "STARTSWITH":
      return (row) => !t.isEmpty(row) && t.text(row).startsWith(needle);
    case "ENDSWITH":
    case "%":
      return (row) => !t.isEmpty(row) && t.text(row).endsWith(needle);
    case "LIKE":
    case "*":
      return (row) => !t.isEmpty(row) && t.text(row).includes(needle);
    case "NOT LIKE":
    case "!*":
      return (row) => !t.isEmpty(row) && !t.text(row).includes(needle);
    case "IN":
    case "NOT IN": {
      const wanted = c.value.split(",").map((v) => t.literal(v)).filter((v) => !isMissing(v));
      const has = (row: number) => {
        const v = t.value(row);
        return wanted.some((w) => t.compare(v, w) === 0);
      };
      return c.operator === "IN"
        ? (row) => !t.isEmpty(row) && has(row)
        : (row) => !t.isEmpty(row) && !has(row);
    }
    case "BETWEEN": {
      const at = c.value.indexOf("@");
      if (at < 0) return () => false;
      const lo = t.literal(c.value.slice(0, at)), hi = t.literal(c.value.slice(at + 1));
      if (isMissing(lo) || isMissing(hi)) return () => false;
      return (row) => {
        if (t.isEmpty(row)) return false;
        const v = t.value(row);
        return t.compare(v, lo) >= 0 && t.compare(v, hi) <= 0;
      };
    }
    case "ISEMPTY":
    case "EMPTYSTRING":
      return t.isEmpty;
    case "ISNOTEMPTY":
      return (row) => !t.isEmpty(row);
    case "ANYTHING":
      return () => true;
    case "SAMEAS":
    case "NSAMEAS":
    case "GT_FIELD":
    case "LT_FIELD":
    case "GT_OR_EQUALS_FIELD":
    case "LT_OR_EQUALS_FIELD": {
      const other = fieldOperand();
      if (!other) return undefined;
      const accept: Record<string, (cmp: number) => boolean> = {
        SAMEAS: (x) => x === 0,
        NSAMEAS: (x) => x !== 0,
        GT_FIELD: (x) => x > 0,
        LT_FIELD: (x) => x < 0,
        GT_OR_EQUALS_FIELD: (x) => x >= 0,
        LT_OR_EQUALS_FIELD: (x) => x <= 0,
      };
      const ok = accept[c.operator];
      return (row) => {
        const a = t.value(row), b = other(row);
        if (isMissing(a) || isMissing(b)) {
          return c.operator === "NSAMEAS" ? !isMissing(a) || !isMissing(b) : false;
        }
        return ok(t.compare(a, b));
      };
    }
  }
}

/** The timestamp range a condition on the index field implies, for the planner. */
function rangeOf(c: Condition, ctx: CompileContext, reader: ColumnReader): TimeRange | undefined {
  const lit = (text: string) => evaluateDateScript(text, ctx) ?? parseGlideDateTime(text.trim());
  const all: TimeRange = { low: -Infinity, lowInclusive: true, high: Infinity, highInclusive: true };
  if (kindOf(reader.def.type) !== "time") return undefined;
  const v = lit(c.value);
  switch (c.operator) {
    case "=":
      return Number.isNaN(v) ? undefined : { low: v, lowInclusive: true, high: v, highInclusive: true };
    case ">":
    case ">=":
      return Number.isNaN(v) ? undefined : { ...all, low: v, lowInclusive: c.operator === ">=" };
    case "<":
    case "<=":
      return Number.isNaN(v) ? undefined : { ...all, high: v, highInclusive: c.operator === "<=" };
    case "BETWEEN": {
      const at = c.value.indexOf("@");
      const lo = lit(c.value.slice(0, at)), hi = lit(c.value.slice(at + 1));
      return at < 0 || Number.isNaN(lo) || Number.isNaN(hi)
        ? undefined
        : { low: lo, lowInclusive: true, high: hi, highInclusive: true };
    }
    default:
      return undefined;
  }
}

function intersect(a: TimeRange, b: TimeRange): TimeRange {
  const low = a.low > b.low
    ? a
    : b.low > a.low
    ? b
    : { low: a.low, lowInclusive: a.lowInclusive && b.lowInclusive };
  const high = a.high < b.high
    ? a
    : b.high < a.high
    ? b
    : { high: a.high, highInclusive: a.highInclusive && b.highInclusive };
  return { low: low.low, lowInclusive: low.lowInclusive, high: high.high, highInclusive: high.highInclusive };
}

function orderKey(reader: ColumnReader, ctx: CompileContext): (row: number) => number | string {
  const kind = kindOf(reader.def.type);
  const get = reader.get;
  if (kind === "number") return (row) => (get(row) === "" ? -Infinity : Number(get(row)));
  if (kind === "time") {
    const secs = reader.seconds ?? ((row: number) => parseGlideDateTime(get(row)));
    return (row) => {
      const s = secs(row);
      return Number.isNaN(s) ? -Infinity : s;
    };
  }
  if (kind === "binary") return get;
  // Ordering by a reference orders by the referenced record's display value, as lists on the instance do.
  if (reader.def.type === "reference") {
    return (row) => ctx.db.referenceDisplay(reader.def, get(row)).toLowerCase();
  }
  return (row) => get(row).toLowerCase();
}

export function compileQuery(parsed: ParsedQuery, source: RowSource, ctx: CompileContext): CompiledQuery {
  const dropped = [...parsed.invalidTerms];
  const indexField = source.updatedIndex?.field;
  const groups: CompiledGroup[] = [];
  for (const group of parsed.groups) {
    const termTests: RowTest[] = [];
    let range: TimeRange | undefined;
    for (const term of group) {
      const alternatives: RowTest[] = [];
      for (const c of term) {
        const test = compileCondition(c, source, ctx);
        if (test) alternatives.push(test);
        else dropped.push(c.text);
      }
      if (alternatives.length === 0) continue;
      termTests.push(alternatives.length === 1 ? alternatives[0] : (row) => alternatives.some((a) => a(row)));
      if (term.length === 1 && alternatives.length === 1 && term[0].field === indexField) {
        const r = rangeOf(term[0], ctx, source.reader(indexField)!);
        if (r) range = range ? intersect(range, r) : r;
      }
    }
    const test: RowTest = termTests.length === 0
      ? () => true
      : termTests.length === 1
      ? termTests[0]
      : (row) => {
        for (const t of termTests) if (!t(row)) return false;
        return true;
      };
    groups.push({ test, range });
  }
  const orderBy: CompiledOrderKey[] = [];
  for (const o of parsed.orderBy) {
    const reader = ctx.db.reader(source, o.field);
    if (!reader) {
      dropped.push(`ORDERBY${o.descending ? "DESC" : ""}${o.field}`);
      continue;
    }
    orderBy.push({ field: o.field, descending: o.descending, reader, key: orderKey(reader, ctx) });
  }
  return {
    groups,
    orderBy,
    droppedTerms: dropped,
    matchNothing: ctx.invalidQueryReturnsNoRows && dropped.length > 0,
  };
}
