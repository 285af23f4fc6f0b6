/** docs/configuration.md is generated from the definitions; this fails when someone forgot `deno task docs`. */
import { assert } from "../support/assert.ts";
import { renderConfigurationDoc } from "../../src/config/docs.ts";

Deno.test("docs/configuration.md is up to date with the property definitions", async () => {
  const committed = await Deno.readTextFile(new URL("../../docs/configuration.md", import.meta.url));
  assert(committed === renderConfigurationDoc(), "docs/configuration.md is stale: run `deno task docs`");
});
