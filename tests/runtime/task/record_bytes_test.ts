/** Connect records to bytes (src/runtime/task/record_bytes.ts): headers shared between records are converted once. */
import { assert, assertEquals } from "../../support/assert.ts";
import { SourceRecord } from "../../../src/connect/record.ts";
import { Header } from "../../../src/connect/headers.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { StringConverter } from "../../../src/connect/converters/string_converter.ts";
import { toBytes } from "../../../src/runtime/task/record_bytes.ts";

const string = new StringConverter();
const converters = {
  key: string,
  value: string,
  header: string,
  classes: { key: "string", value: "string", header: "string" },
};
const record = (headers: Header[], topic = "t") =>
  new SourceRecord({ topic, keySchema: Schema.STRING_SCHEMA, key: "k", value: null, headers });
const text = (headers: Record<string, Uint8Array>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, new TextDecoder().decode(v)]));

Deno.test("record bytes: records with the same Header objects share one converted set; others get their own", () => {
  const table = new Header("svc.table", Schema.STRING_SCHEMA, "incident");
  const page1 = new Header("svc.extracted_at", Schema.INT64_SCHEMA, 1);
  const page2 = new Header("svc.extracted_at", Schema.INT64_SCHEMA, 2);
  const a = toBytes(converters, record([table, page1]));
  const b = toBytes(converters, record([table, page1]));
  assert(a.headers === b.headers, "the same Header objects: one set");
  assertEquals(text(a.headers), { "svc.table": "incident", "svc.extracted_at": "1" });
  const c = toBytes(converters, record([table, page2]));
  assertEquals(text(c.headers), { "svc.table": "incident", "svc.extracted_at": "2" });
  assertEquals(
    text(a.headers),
    { "svc.table": "incident", "svc.extracted_at": "1" },
    "the earlier set unchanged",
  );
  assertEquals(text(toBytes(converters, record([table])).headers), { "svc.table": "incident" });
  assertEquals(text(toBytes(converters, record([table, page2, page1])).headers), {
    "svc.table": "incident",
    "svc.extracted_at": "1",
  });
  assert(
    toBytes(converters, record([table, page2], "other")).headers !== c.headers,
    "another topic: its own",
  );
});
