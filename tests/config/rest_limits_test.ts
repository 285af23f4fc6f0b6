/** REST listener limits in the worker section: a body limit no connector config fits in is refused. */
import { assert, assertEquals } from "../support/assert.ts";
import { analyzeWorker } from "../../src/config/worker_config.ts";

Deno.test("rest.request.max.bytes: 1 KiB or more is accepted, less is an error naming the key", () => {
  assertEquals(analyzeWorker({ "rest.request.max.bytes": "1024" }).values["rest.request.max.bytes"], 1024);
  const errors = analyzeWorker({ "rest.request.max.bytes": "1" }).errors.get("rest.request.max.bytes") ?? [];
  assertEquals(errors.length, 1);
  assert(errors[0].includes("1024"), errors[0]);
});
