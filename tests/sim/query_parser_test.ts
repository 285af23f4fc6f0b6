import { assertEquals } from "../support/assert.ts";
import { parseCondition, parseEncodedQuery } from "../../src/sim/query/parser.ts";

const fields = (q: string) =>
  parseEncodedQuery(q).groups.map((g) =>
    g.map((term) => term.map((c) => `${c.field}${c.operator}${c.value}`))
  );

Deno.test("^OR binds tighter than ^: a^b^ORc is a AND (b OR c)", () => {
  assertEquals(fields("a=1^b=2^ORc=3"), [[["a=1"], ["b=2", "c=3"]]]);
});

Deno.test("^NQ starts a new top-level OR group", () => {
  assertEquals(fields("a=1^b=2^NQc=3^ORd=4"), [[["a=1"], ["b=2"]], [["c=3", "d=4"]]]);
});

Deno.test("ORDERBY and ORDERBYDESC anywhere become global sort keys in order", () => {
  const p = parseEncodedQuery("ORDERBYnumber^active=true^ORDERBYDESCcategory^NQa=1^ORDERBYsys_id");
  assertEquals(p.orderBy, [
    { field: "number", descending: false },
    { field: "category", descending: true },
    { field: "sys_id", descending: false },
  ]);
  assertEquals(fields("ORDERBYnumber^active=true^NQa=1"), [[["active=true"]], [["a=1"]]]);
});

Deno.test("^^ is a literal caret and ^EQ is ignored", () => {
  assertEquals(fields("short_description=a^^b^EQ"), [[["short_description=a^b"]]]);
});

Deno.test("operators are recognised longest first", () => {
  const cases: Array<[string, string, string]> = [
    ["stateIN1,2", "IN", "1,2"],
    ["stateNOT IN1,2", "NOT IN", "1,2"],
    ["nameNOT LIKEx", "NOT LIKE", "x"],
    ["nameISNOTEMPTY", "ISNOTEMPTY", ""],
    ["nameISEMPTY", "ISEMPTY", ""],
    ["a!=b", "!=", "b"],
    ["a>=b", ">=", "b"],
    ["a<=b", "<=", "b"],
    ["impactBETWEEN1@3", "BETWEEN", "1@3"],
    ["nameSTARTSWITHab", "STARTSWITH", "ab"],
    ["nameENDSWITHab", "ENDSWITH", "ab"],
    ["caller_id.name=Abel", "=", "Abel"],
  ];
  for (const [text, op, value] of cases) {
    const c = parseCondition(text)!;
    assertEquals([c.operator, c.value], [op, value], text);
  }
});

Deno.test("terms that are not conditions are reported as invalid", () => {
  const p = parseEncodedQuery("active=true^123TEXTQUERY321=x^stateINSTANCEOFfoo");
  assertEquals(fields("active=true^123TEXTQUERY321=x"), [[["active=true"]]]);
  assertEquals(p.invalidTerms, ["123TEXTQUERY321=x", "stateINSTANCEOFfoo"]);
});
