import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { validateTransforms } from "../../../src/connect/transforms/validate.ts";
import { P, T } from "./helpers.ts";

Deno.test("validate reports defs in Connect's groups and order, with no errors for a valid config", () => {
  const result = validateTransforms({
    transforms: "route",
    "transforms.route.type": `${T}RegexRouter`,
    "transforms.route.regex": "(.*)",
    "transforms.route.replacement": "x.$1",
    "transforms.route.predicate": "isTest",
    predicates: "isTest",
    "predicates.isTest.type": `${P}TopicNameMatches`,
    "predicates.isTest.pattern": "test.*",
  });
  assertEquals(result.errors.size, 0);
  assertEquals(result.defs.map((d) => [d.group, d.name]), [
    ["Transforms: route", "transforms.route.type"],
    ["Transforms: route", "transforms.route.predicate"],
    ["Transforms: route", "transforms.route.negate"],
    ["Transforms: route", "transforms.route.regex"],
    ["Transforms: route", "transforms.route.replacement"],
    ["Predicates: isTest", "predicates.isTest.type"],
    ["Predicates: isTest", "predicates.isTest.pattern"],
  ]);
  const type = result.defs[0];
  assertEquals([type.type, type.default, type.documentation], [
    "CLASS",
    undefined,
    "Class for the 'route' transformation.",
  ]);
  assertEquals(result.defs[2].default, "false");
});

Deno.test("validate: unknown type names the alias key, the class and the supported classes", () => {
  const { errors, defs } = validateTransforms({
    transforms: "x",
    "transforms.x.type": "com.example.Mystery",
  });
  const [message] = errors.get("transforms.x.type")!;
  assertStringIncludes(message, "Invalid value com.example.Mystery for configuration transforms.x.type");
  assertStringIncludes(message, `${T}ReplaceField$Value`);
  assertEquals(defs.map((d) => d.name), [
    "transforms.x.type",
    "transforms.x.predicate",
    "transforms.x.negate",
  ]);
  const predicate = validateTransforms({ predicates: "p", "predicates.p.type": `${T}Filter` });
  assertStringIncludes(
    predicate.errors.get("predicates.p.type")![0],
    `Supported predicate classes: ${P}HasHeaderKey`,
  );
});

Deno.test("validate: missing and invalid keys of each transform, with Kafka's messages", () => {
  const { errors } = validateTransforms({
    transforms: "router,cast,ts,ins,neg",
    "transforms.router.type": `${T}RegexRouter`,
    "transforms.router.replacement": "x",
    "transforms.cast.type": `${T}Cast$Value`,
    "transforms.cast.spec": "a:faketype",
    "transforms.ts.type": `${T}TimestampConverter$Value`,
    "transforms.ins.type": `${T}InsertField$Value`,
    "transforms.ins.static.field": "s",
    "transforms.neg.type": `${T}Filter`,
    "transforms.neg.negate": "maybe",
    "transforms.neg.predicate": "missing",
  });
  assertEquals(errors.get("transforms.router.regex"), [
    'Missing required configuration "transforms.router.regex" which has no default value.',
  ]);
  assertStringIncludes(
    errors.get("transforms.cast.spec")![0],
    "Invalid type found in casting spec: faketype",
  );
  assertEquals(errors.get("transforms.ts.target.type"), [
    'Missing required configuration "transforms.ts.target.type" which has no default value.',
  ]);
  assertStringIncludes(
    errors.get("transforms.ins.static.value")![0],
    "No value specified for static field: s",
  );
  assertStringIncludes(errors.get("transforms.neg.negate")![0], "Expected value to be either true or false");
  assertStringIncludes(
    errors.get("transforms.neg.predicate")![0],
    "predicate 'missing' is not listed in predicates",
  );
});

Deno.test("validate: missing type and duplicate aliases", () => {
  const { errors } = validateTransforms({ transforms: "a,a", predicates: "p" });
  assertEquals(errors.get("transforms.a.type"), [
    'Missing required configuration "transforms.a.type" which has no default value.',
  ]);
  assertEquals(errors.get("predicates.p.type"), [
    'Missing required configuration "predicates.p.type" which has no default value.',
  ]);
  assert(errors.get("transforms")![0].endsWith("Duplicate alias provided."));
});
