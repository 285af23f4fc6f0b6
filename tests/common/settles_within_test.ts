/** A bounded wait tells whether what it waited for came in time, passes its failure on, and leaves no timer. */
import { assertEquals, assertRejects } from "../support/assert.ts";
import { settlesWithin } from "../../src/common/delay.ts";

Deno.test("a promise that resolves in time: true", async () => {
  assertEquals(await settlesWithin(Promise.resolve("value"), 60_000), true);
});

Deno.test("a promise still pending when the time runs out: false", async () => {
  assertEquals(await settlesWithin(new Promise(() => {}), 1), false);
});

Deno.test("a promise that rejects in time: the rejection", async () => {
  await assertRejects(() => settlesWithin(Promise.reject(new Error("broken")), 60_000), Error, "broken");
});
