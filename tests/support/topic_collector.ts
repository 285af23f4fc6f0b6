/**
 * Reads a topic from its beginning, continuously, into an array the test inspects while the daemon runs (crash
 * tests wait for every row's final version to appear). Each message's JSON value is mapped by the caller.
 *
 * The reader is kcat (librdkafka) assigned every partition from offset 0, not a kafkajs group member: a crash
 * test runs for minutes on a loaded machine, and a group consumer that loses a rebalance race can stop reading a
 * partition, which looks exactly like the loss the test is there to catch. kcat has no group and no rebalances.
 */
import { readLines } from "./read_lines.ts";

export interface CollectedMessage {
  readonly key: string;
  /** The parsed JSON value. */
  readonly value: Record<string, unknown>;
  readonly timestamp: number;
  readonly partition: number;
  readonly offset: number;
}

/** Consumes `topic` into `out` (through `map`) until the returned reader is disconnected. */
export function collectTopic<T>(
  bootstrap: string,
  topic: string,
  out: T[],
  map: (message: CollectedMessage) => T,
): Promise<{ failure(): Error | null; disconnect(): Promise<void> }> {
  const child = new Deno.Command("kcat", {
    // -C consume, -o beginning of every partition, -u unbuffered output, -J one JSON object per message; no -e:
    // kcat keeps reading at the end of each partition.
    args: ["-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-u", "-J", "-q"],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let failure: Error | null = null;
  const reading = (async () => {
    for await (const line of readLines(child.stdout)) {
      if (line.trim() === "") continue;
      const m = JSON.parse(line) as {
        partition: number;
        offset: number;
        ts: number;
        key: string;
        payload: string;
      };
      out.push(map({
        key: m.key,
        value: JSON.parse(m.payload),
        timestamp: m.ts,
        partition: m.partition,
        offset: m.offset,
      }));
    }
  })().catch((e) => {
    failure = e as Error;
  });
  let stopped = false;
  void child.status.then(async (status) => {
    if (!stopped) failure ??= new Error(`kcat reading ${topic} exited (${status.code}): ${await stderr}`);
  });
  return Promise.resolve({
    /** Why reading stopped early (a line kcat wrote that did not parse, or kcat exited), or null. */
    failure: () => failure,
    async disconnect() {
      stopped = true;
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
      await reading;
      await stderr;
      if (failure) throw failure;
    },
  });
}
