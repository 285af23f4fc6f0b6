import { assertEquals, assertThrows } from "../support/assert.ts";
import {
  condition,
  containsOrderBy,
  EncodedQuery,
  keysetAfter,
  utcLiteral,
} from "../../src/instance/encoded_query.ts";

Deno.test("encoded query: conditions", () => {
  assertEquals(condition("active", "=", "true"), "active=true");
  assertEquals(condition("caller_id.email", "STARTSWITH", "a"), "caller_id.emailSTARTSWITHa");
  assertEquals(condition("state", "IN", ["1", "2"]), "stateIN1,2");
  assertEquals(condition("description", "ISEMPTY"), "descriptionISEMPTY");
  assertThrows(() => condition("x", "=", "a^b"), RangeError, "cannot be expressed");
  assertThrows(() => condition("bad field", "=", "a"), RangeError, "not a field name");
  assertThrows(() => condition("state", "IN", "1"), RangeError, "needs a list");
  assertThrows(() => condition("state", "IN", ["1,2"]), RangeError);
});

Deno.test("encoded query: cursor conditions go into every NQ group", () => {
  const q = EncodedQuery.parse("active=true^NQpriority=1^ORpriority=2")
    .and(condition("sys_updated_on", "<=", "2024-01-02 00:00:00"))
    .orderBy("sys_updated_on")
    .orderBy("sys_id");
  assertEquals(
    q.toString(),
    "active=true^sys_updated_on<=2024-01-02 00:00:00^NQpriority=1^ORpriority=2^sys_updated_on<=2024-01-02 00:00:00" +
      "^ORDERBYsys_updated_on^ORDERBYsys_id",
  );
});

Deno.test("encoded query: keyset predicate after (timestamp, sys_id)", () => {
  const cursor = keysetAfter("sys_updated_on", "2024-01-01 10:00:00", "sys_id", "abc");
  assertEquals(cursor, "sys_updated_on>=2024-01-01 10:00:00^sys_updated_on>2024-01-01 10:00:00^ORsys_id>abc");
  assertEquals(
    EncodedQuery.all().and(cursor).orderBy("sys_updated_on").toString(),
    `${cursor}^ORDERBYsys_updated_on`,
  );
});

Deno.test("encoded query: base query hygiene", () => {
  assertEquals(EncodedQuery.parse("").toString(), "");
  assertEquals(EncodedQuery.parse("active=true^EQ").and("x=1").toString(), "active=true^x=1");
  assertEquals(EncodedQuery.parse("^active=true^").toString(), "active=true");
  assertThrows(() => EncodedQuery.parse("active=true^ORDERBYnumber"), RangeError, "ORDERBY");
  assertEquals(containsOrderBy("ORDERBYDESCnumber"), true);
  assertEquals(containsOrderBy("a=1^NQORDERBYnumber"), true);
  assertEquals(containsOrderBy("a=1^ORb=2"), false);
  assertEquals(EncodedQuery.all().orderBy("number", "desc").toString(), "ORDERBYDESCnumber");
});

Deno.test("encoded query: UTC literal", () => {
  assertEquals(utcLiteral(new Date("2024-03-05T07:08:09.999Z")), "2024-03-05 07:08:09");
});
