/**
 * The demo's refused writes: the simulator refuses or bends writes as an instance does (a business rule that
 * aborts, a data policy, a write ACL on the record and one on a field, the transaction quota), the demo sends one
 * record of each kind to the `demo-refusals` sink (deploy/examples/demo.yaml) and prints each one as it lands in
 * the dead letter queue, with its class and the instance's words. The sink runs with `errors.tolerance=all`, so
 * it goes on after each.
 */
import type { Simulator } from "../src/sim/mod.ts";
import type { KafkaClient as Kafka } from "../src/kafka/mod.ts";

export const REFUSALS_TOPIC = "demo.refusals";
export const REFUSALS_DLQ = "demo.refusals.dlq";

/** Installs the instance's rules on the simulator's incident table (HTTP writes only: the demo's writer is not). */
export function installRefusals(sim: Simulator): void {
  sim.writeRules.add({
    kind: "abort",
    table: "incident",
    name: "Block VIP close",
    when: { category: "vip" },
  });
  sim.writeRules.add({
    kind: "data_policy",
    table: "incident",
    mandatory: ["close_code"],
    when: { close_notes: "closing" },
  });
  sim.writeRules.add({ kind: "acl_deny", table: "incident", when: { category: "secret" } });
  sim.writeRules.add({ kind: "write_acl", table: "incident", fields: ["description"] });
  sim.writeRules.add({
    kind: "quota_cancel",
    table: "incident",
    operation: "insert",
    when: { short_description: "slow create" },
  });
}

/** One record per refusal, keyed by rows of the table (`ids`), and one plain update that is written. */
export async function sendRefusals(kafka: Kafka, ids: readonly string[]): Promise<void> {
  const records: Array<[string | null, Record<string, string>]> = [
    [ids[1], { category: "vip", short_description: "closing a VIP incident" }],
    [ids[2], { close_notes: "closing", close_code: "" }],
    [ids[3], { category: "secret" }],
    ["0123456789abcdef0123456789abcdef", { short_description: "no such row" }],
    [ids[4], { short_description: "with a misspelt field", u_bogus: "x" }],
    [null, { short_description: "slow create" }],
    [ids[5], { description: "a value the write ACL keeps" }],
    [ids[6], { short_description: "a plain update, written" }],
  ];
  const encoder = new TextEncoder();
  const producer = await kafka.producer();
  try {
    await producer.send(records.map(([key, value]) => ({
      topic: REFUSALS_TOPIC,
      key: key === null ? null : encoder.encode(key),
      value: encoder.encode(JSON.stringify(value)),
    })));
  } finally {
    await producer.close();
  }
}

/** Reads the dead letter queue and prints each record's class and message; returns the reader to close. */
export async function readDeadLetters(kafka: Kafka): Promise<{ close(): Promise<void> }> {
  const decoder = new TextDecoder();
  const reader = await kafka.consumer({ topics: [REFUSALS_DLQ] }, {
    groupId: `demo-dlq-reader-${crypto.randomUUID()}`,
    autoOffsetReset: "earliest",
  });
  await reader.run((batch) => {
    for (const r of batch.records) {
      const header = (name: string) => r.headers[name] ? decoder.decode(r.headers[name]) : null;
      const said = header("tablesync.errors.instance.message") ??
        header("__connect.errors.exception.message");
      console.log(
        `dead letter queue: ${header("tablesync.errors.write.class")} · ${
          r.value ? decoder.decode(r.value) : "null"
        } · ${said?.replaceAll("\n", " ").slice(0, 160)}`,
      );
    }
    return Promise.resolve();
  });
  return reader;
}
