/** connector_name.ts: the names Kafka Connect refuses, and ours that no URL path could address. */
import { assertEquals, assertStringIncludes, assertThrows } from "../../support/assert.ts";
import { checkConnectorName } from "../../../src/runtime/herder/connector_name.ts";
import { ConnectRestError } from "../../../src/runtime/herder/connect_rest_error.ts";

function refusal(name: string): string {
  const error = (assertThrows(() => checkConnectorName(name), ConnectRestError)) as ConnectRestError;
  assertEquals(error.status, 400);
  assertStringIncludes(error.message, "for configuration name:");
  return error.message;
}

Deno.test("blank, control characters, too long, a slash or a dot path are refused, naming the problem", () => {
  assertStringIncludes(refusal(""), "empty or blank");
  assertStringIncludes(refusal(" \t "), "empty or blank"); // trimmed away, as Connect trims
  assertStringIncludes(refusal("   "), "empty or blank");
  assertStringIncludes(refusal("a\nb"), "U+000A");
  const c1 = refusal("a\u0085b");
  assertStringIncludes(c1, "U+0085");
  assertStringIncludes(c1, 'Invalid value "a\\u0085b"', "the invisible character is shown escaped");
  assertStringIncludes(refusal("a\u007fb"), "U+007F");
  const long = refusal("x".repeat(5000));
  assertStringIncludes(long, "5000 characters long; at most 249");
  assertEquals(long.length < 300, true, "the name is cut short in the message");
  assertStringIncludes(refusal("a/b"), "'/'");
  assertStringIncludes(refusal(".."), "'..'");
  assertStringIncludes(refusal("."), "'.'");
});

Deno.test("ordinary names, unicode and the longest allowed pass", () => {
  for (const name of ["incidents", "sn incident source", "a.b-c_d", "événements", "x".repeat(249), "a..b"]) {
    checkConnectorName(name);
  }
});
