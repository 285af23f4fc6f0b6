/**
 * The config file's JSON Schema (src/config/json_schema.ts): the committed docs/tablesync.schema.json is current,
 * every shipped example and good fixture validates with ajv, the examples point editors at it, and the bad fixtures
 * whose mistake lies within one property (types, enums, ranges, patterns, unknown svc.* keys, required keys) are
 * rejected with an error naming the property their `# expect:` line names.
 */
import { Ajv, type ErrorObject } from "ajv";
import { parse as parseYaml } from "yaml";
import { assert, assertEquals } from "../support/assert.ts";
import { configFilesIn } from "../support/config_files.ts";
import { configFileSchema, renderConfigFileSchema } from "../../src/config/json_schema.ts";

const ROOT = new URL("../../", import.meta.url);
const FIXTURES = new URL("tests/fixtures/configs/", ROOT);

// A declared property may also match a pass-through pattern (topic.creation.groups vs ^topic\.creation\.); both apply.
const ajv = new Ajv({ strict: true, allowMatchingProperties: true, allErrors: true });
const validate = ajv.compile(configFileSchema());

function load(file: URL): { text: string; doc: unknown } {
  const text = Deno.readTextFileSync(file);
  return { text, doc: file.pathname.endsWith(".json") ? JSON.parse(text) : parseYaml(text) };
}

/** The property an ajv error is about: the key at its path, the missing key, or the extra key. */
function propertyOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (typeof params.missingProperty === "string") return params.missingProperty;
  if (typeof params.additionalProperty === "string") return params.additionalProperty;
  const segments = error.instancePath.split("/");
  return segments[segments.length - 1].replace(/~1/g, "/").replace(/~0/g, "~");
}

function errorsOf(doc: unknown): ErrorObject[] {
  return validate(doc) ? [] : validate.errors ?? [];
}

Deno.test("docs/tablesync.schema.json is up to date with the property definitions", async () => {
  const committed = await Deno.readTextFile(new URL("docs/tablesync.schema.json", ROOT));
  assert(committed === renderConfigFileSchema(), "docs/tablesync.schema.json is stale: run `deno task docs`");
});

for (
  const file of [
    ...configFilesIn(new URL("deploy/examples/", ROOT)),
    ...configFilesIn(new URL("good/", FIXTURES)),
  ]
) {
  const name = file.pathname.slice(new URL(ROOT).pathname.length);
  Deno.test(`schema accepts ${name}`, () => {
    const errors = errorsOf(load(file).doc);
    assertEquals(errors.map((e) => `${e.instancePath} ${e.message}`), []);
  });
}

Deno.test("every example config points editors at the schema", () => {
  for (const file of configFilesIn(new URL("deploy/examples/", ROOT))) {
    const first = Deno.readTextFileSync(file).split("\n")[0];
    assertEquals(first, "# yaml-language-server: $schema=../../docs/tablesync.schema.json", file.pathname);
  }
});

/** Bad fixtures whose mistake the schema can see; the others need cross-property rules or the file loader. */
const CAUGHT_BY_SCHEMA = [
  "alias-uppercase.yaml",
  "auth-type-unknown.yaml",
  "batch-size-too-large.yaml",
  "batch-size-zero.yaml",
  "boolean-not-boolean.yaml",
  "capture-deletes-not-boolean.yaml",
  "connector-class-unknown.yaml",
  "display-value-bad.yaml",
  "errors-tolerance-bad.yaml",
  "file-nested-value.yaml",
  "file-unknown-top-level.yaml",
  "keystore-type-lowercase.yaml",
  "max-concurrent-zero.yaml",
  "max-response-too-small.yaml",
  "missing-tables.yaml",
  "missing-url.yaml",
  "overlap-negative.yaml",
  "poll-interval-not-number.yaml",
  "retry-attempts-zero.yaml",
  "schema-mode-unknown.yaml",
  "sink-api-errors-bad.yaml",
  "sink-rename-bad.yaml",
  "sink-update-method-bad.yaml",
  "start-timestamp-format.yaml",
  "table-batch-size-too-large.yaml",
  "table-name-bad-chars.yaml",
  "tasks-max-zero.yaml",
  "truststore-type-bad.yaml",
  "unknown-svc-key-typo.yaml",
  "unknown-table-key-typo.yaml",
  "url-not-http.yaml",
  "worker-log-level.yaml",
];

for (const name of CAUGHT_BY_SCHEMA) {
  Deno.test(`schema rejects bad/${name}, naming the property`, () => {
    const { text, doc } = load(new URL(`bad/${name}`, FIXTURES));
    const expected = /^# expect: (\S+) \|/m.exec(text)?.[1];
    assert(expected, `${name} has no '# expect:' line`);
    const errors = errorsOf(doc);
    assert(errors.length > 0, `${name}: the schema accepted it`);
    if (expected === "(file)") return;
    const named = new Set(errors.map(propertyOf));
    assert(named.has(expected), `${name}: no error names ${expected}; errors name ${[...named].join(", ")}`);
  });
}

Deno.test("placeholders are accepted where a typed value is expected", () => {
  const errors = errorsOf({
    worker: { "log.level": "${env:LOG_LEVEL}" },
    connectors: [{
      name: "x",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": "${env:URL}",
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "t",
        "svc.source.batch.size": "${file:/etc/p.properties:batch}",
        "svc.source.emit.envelope": "TRUE",
        "tasks.max": "2",
      },
    }],
  });
  assertEquals(errors.map((e) => `${e.instancePath} ${e.message}`), []);
});
