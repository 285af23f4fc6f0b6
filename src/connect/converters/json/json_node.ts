/**
 * A parsed JSON document that keeps numbers exactly as written (Jackson's tree model as JsonConverter uses it):
 * `JSON.parse` would round int64 values beyond 2^53 and decimals like 1.23456789123456789.
 */

export type JsonNode =
  | { readonly kind: "missing" }
  | { readonly kind: "null" }
  | { readonly kind: "boolean"; readonly value: boolean }
  /** `text` is the number exactly as written; `integral` when it has no fraction or exponent. */
  | { readonly kind: "number"; readonly text: string; readonly integral: boolean }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "array"; readonly items: readonly JsonNode[] }
  /** `source` is the object's exact text, used as a cache key for schemas. Duplicate keys: the last one wins. */
  | { readonly kind: "object"; readonly fields: ReadonlyMap<string, JsonNode>; readonly source: string };

export type JsonNumberNode = Extract<JsonNode, { kind: "number" }>;

/** Jackson's `JsonNodeType` name, used in Kafka's error messages (`... but found STRING`). */
export function jsonNodeType(node: JsonNode | undefined): string {
  switch (node?.kind) {
    case undefined:
    case "missing":
      return "MISSING";
    case "null":
      return "NULL";
    case "boolean":
      return "BOOLEAN";
    case "number":
      return "NUMBER";
    case "string":
      return "STRING";
    case "array":
      return "ARRAY";
    case "object":
      return "OBJECT";
  }
}

/** Jackson's `isInt()`: an integral number that fits in 32 bits. */
export function isIntNode(node: JsonNode): boolean {
  if (node.kind !== "number" || !node.integral) return false;
  const value = BigInt(node.text);
  return value >= -2147483648n && value <= 2147483647n;
}

/** The number's integer part, truncated toward zero (Jackson's `longValue()` before narrowing). */
export function truncatedInteger(node: JsonNumberNode): bigint {
  if (node.integral) return BigInt(node.text);
  const [mantissa, exponentText = "0"] = node.text.toLowerCase().split("e");
  const negative = mantissa.startsWith("-");
  const [integer, fraction = ""] = mantissa.replace("-", "").split(".");
  const exponent = Number(exponentText);
  const digits = integer + fraction;
  const pointAt = integer.length + exponent;
  if (pointAt <= 0) return 0n;
  const whole = BigInt(digits.slice(0, pointAt).padEnd(pointAt, "0") || "0");
  return negative ? -whole : whole;
}
