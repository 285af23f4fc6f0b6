/**
 * Writes docs/configuration.md and docs/tablesync.schema.json from the property definitions (`deno task docs`).
 */
import { renderConfigurationDoc } from "../src/config/docs.ts";
import { renderConfigFileSchema } from "../src/config/json_schema.ts";

const outputs: [string, string][] = [
  ["../docs/configuration.md", renderConfigurationDoc()],
  ["../docs/tablesync.schema.json", renderConfigFileSchema()],
];
for (const [path, text] of outputs) {
  const target = new URL(path, import.meta.url);
  await Deno.writeTextFile(target, text);
  console.log(`wrote ${target.pathname}`);
}
