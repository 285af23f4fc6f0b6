/** Writes docs/configuration.md from the property definitions (`deno task docs`). */
import { renderConfigurationDoc } from "../src/config/docs.ts";

const target = new URL("../docs/configuration.md", import.meta.url);
await Deno.writeTextFile(target, renderConfigurationDoc());
console.log(`wrote ${target.pathname}`);
