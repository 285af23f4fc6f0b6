/**
 * Sweep high-water marks (high_water.ts) against the simulator: the last Date carried forward on the local clock
 * makes no request; only a task that has seen no Date reads the clock; a first page whose own Date shows the
 * instance clock behind the mark (the clock stood still) contradicts it, and the next mark comes from that Date.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { instanceSettingsFromProps, TableClient } from "../../src/instance/mod.ts";
import { HighWater } from "../../src/source/high_water.ts";
import { InstanceTimeSource } from "../../src/source/instance_time.ts";
import { propsOf, sourceConfig, startSim } from "./support.ts";

Deno.test("high-water marks: carried forward without a request, read once without a Date, contradicted by a clock that stood still", async () => {
  const sim = await startSim({ clock: { mode: "frozen", at: "2024-06-01 12:00:10" } });
  const client = await TableClient.create(
    instanceSettingsFromProps(propsOf(sourceConfig(sim, { inc: "incident" }))),
  );
  try {
    let local = 5_000_000;
    const clock = new InstanceTimeSource(() => local);
    const high = new HighWater({
      table: { table: "incident" },
      source: { safetyLagSeconds: 1 },
      client,
      clock,
      signal: new AbortController().signal,
    });
    const requests = () => sim.journal.entries().length;

    // No Date seen yet: one small request reads the clock.
    assertEquals((await high.forSweep()).text, "2024-06-01 12:00:09");
    assertEquals(requests(), 1);

    // Three seconds later on the local clock: the reading carried forward, no request.
    local += 3_000;
    const mark = await high.forSweep();
    assertEquals(mark.text, "2024-06-01 12:00:12");
    assertEquals(requests(), 1, "no request reads the clock");

    // The instance clock stood still at 12:00:10: its Date contradicts a mark of 12:00:12.
    const frozenDate = new Date(Date.UTC(2024, 5, 1, 12, 0, 10));
    assertEquals(
      high.contradicts(mark, new Date(Date.UTC(2024, 5, 1, 12, 0, 13))),
      false,
      "a Date that agrees",
    );
    assert(high.contradicts(mark, frozenDate));
    local += 5_000;
    assertEquals(
      (await high.forSweep()).text,
      "2024-06-01 12:00:09",
      "the next mark is the Date's, as it is",
    );
    assertEquals(high.contradicts(mark, null), false, "no usable Date: nothing to check against");
    assertEquals(requests(), 1);
  } finally {
    client.close();
    await sim.stop();
  }
});
