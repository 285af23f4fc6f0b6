/** Worker defaults a deployment sets through the environment (the container image's listener). */
import { assertEquals } from "../support/assert.ts";
import { analyzeWorker } from "../../src/config/worker_config.ts";

Deno.test("TABLESYNC_LISTENERS is the listeners when the file sets none; the file's own setting wins", () => {
  assertEquals(analyzeWorker({}).values["listeners"], ["http://127.0.0.1:8083"]);
  Deno.env.set("TABLESYNC_LISTENERS", "http://0.0.0.0:8083");
  try {
    const fromEnvironment = analyzeWorker({});
    assertEquals(fromEnvironment.values["listeners"], ["http://0.0.0.0:8083"]);
    assertEquals(fromEnvironment.original["listeners"], "http://0.0.0.0:8083");
    assertEquals(analyzeWorker({ listeners: "http://127.0.0.1:9000" }).values["listeners"], [
      "http://127.0.0.1:9000",
    ]);
  } finally {
    Deno.env.delete("TABLESYNC_LISTENERS");
  }
});
