/**
 * Encoded query parser (syntax only; field names are checked later against the table).
 *
 * `a^b^ORc^NQd^ORDERBYe` parses to groups [[a], [b, c]] OR [[d]] with order keys [e]:
 * `^NQ` separates top-level OR groups, `^` separates AND terms within a group, and `^OR` adds an
 * alternative to the term just before it, so `^OR` binds tighter than `^`. ORDERBY terms anywhere are
 * global sort keys in order of appearance. `^^` is a literal caret inside a value; `^EQ` is a no-op.
 */

const OPERATORS = [
  "ISNOTEMPTY",
  "ISEMPTY",
  "EMPTYSTRING",
  "ANYTHING",
  "STARTSWITH",
  "ENDSWITH",
  "NOT LIKE",
  "NOT IN",
  "NSAMEAS",
  "SAMEAS",
  "GT_OR_EQUALS_FIELD",
  "LT_OR_EQUALS_FIELD",
  "GT_FIELD",
  "LT_FIELD",
  "BETWEEN",
  "LIKE",
  "IN",
  "!=",
  ">=",
  "<=",
  "!*",
  "=",
  ">",
  "<",
  "*",
  "%",
] as const;

export type Operator = typeof OPERATORS[number];

/**
 * Operators of the instance that the simulator does not evaluate and that would otherwise be misread as
 * `IN`; the term counts as invalid. (Others such as DYNAMIC, ON, RELATIVEGT match no operator at all.)
 */
const UNSUPPORTED = ["INSTANCEOF", "IN_HIERARCHY"];

export interface Condition {
  field: string;
  operator: Operator;
  value: string;
  /** The term as written, for error messages and the journal. */
  text: string;
}

export interface OrderKey {
  field: string;
  descending: boolean;
}

export interface ParsedQuery {
  /** Top-level OR groups; each is a list of AND terms; each term is a list of OR alternatives. */
  groups: Condition[][][];
  orderBy: OrderKey[];
  /** Terms that are not conditions at all (dropped like unknown fields). */
  invalidTerms: string[];
}

/** Splits on `^`, keeping `^^` as a literal caret. */
function splitCarets(query: string): string[] {
  const tokens: string[] = [];
  let current = "";
  for (let i = 0; i < query.length; i++) {
    const ch = query[i];
    if (ch !== "^") {
      current += ch;
    } else if (query[i + 1] === "^") {
      current += "^";
      i++;
    } else {
      tokens.push(current);
      current = "";
    }
  }
  tokens.push(current);
  return tokens;
}

const FIELD = /^[a-z0-9_][a-z0-9_.]*/;

/** Parses one `<field><operator><value>` term; undefined when it is not one. */
export function parseCondition(text: string): Condition | undefined {
  const m = FIELD.exec(text);
  if (!m) return undefined;
  // A field name cannot end with a dot, and operators such as "<" must not be swallowed.
  const field = m[0].replace(/\.+$/, "");
  const rest = text.slice(field.length);
  if (UNSUPPORTED.some((op) => rest.startsWith(op))) return undefined;
  const operator = OPERATORS.find((op) => rest.startsWith(op));
  if (!operator) return undefined;
  return { field, operator, value: rest.slice(operator.length), text };
}

export function parseEncodedQuery(query: string): ParsedQuery {
  const groups: Condition[][][] = [[]];
  const orderBy: OrderKey[] = [];
  const invalidTerms: string[] = [];
  for (let token of splitCarets(query)) {
    if (token === "" || token === "EQ") continue;
    if (token.startsWith("ORDERBYDESC")) {
      if (token.length > 11) orderBy.push({ field: token.slice(11), descending: true });
      continue;
    }
    if (token.startsWith("ORDERBY")) {
      if (token.length > 7) orderBy.push({ field: token.slice(7), descending: false });
      continue;
    }
    let alternative = false;
    if (token.startsWith("NQ")) {
      groups.push([]);
      token = token.slice(2);
    } else if (token.startsWith("OR")) {
      alternative = true;
      token = token.slice(2);
    }
    if (token === "") continue;
    const condition = parseCondition(token);
    if (!condition) {
      invalidTerms.push(token);
      // An invalid alternative is dropped from its term; an invalid AND term is dropped whole.
      continue;
    }
    const group = groups[groups.length - 1];
    if (alternative && group.length > 0) group[group.length - 1].push(condition);
    else group.push([condition]);
  }
  return { groups, orderBy, invalidTerms };
}
