/**
 * Idle CPU of a connected kafkajs producer, with and without the idle busy-loop fix (src/kafka/idle_fix.ts).
 *
 * One process, one producer connected to all 3 brokers of an in-process librdkafka mock (a record sent to a
 * partition led by each broker). The mock stays here because it is the better tool for this figure: three brokers
 * (three idle connections, each with its own busy loop) in one process, at no memory cost. Then it idles in alternating windows: fix off, fix on, repeated, and prints the
 * CPU used per window as % of one core (process.cpuUsage: user + system, all threads, so the mock's own idle
 * threads are included in both figures alike).
 *
 *   deno run -A bench/kafka_idle_cpu.ts [windowSeconds=3] [rounds=2]
 */
import process from "node:process";
import { startKafkaMock } from "../tests/support/kafka_mock.ts";
import { createKafka } from "../src/kafka/mod.ts";
import { setKafkajsIdleFixEnabled } from "../src/kafka/idle_fix.ts";

const windowMs = Number(Deno.args[0] ?? 3) * 1000;
const rounds = Number(Deno.args[1] ?? 2);

await using mock = startKafkaMock({ brokers: 3 });
mock.createTopic("idle", 3, 3);
for (let p = 0; p < 3; p++) mock.setPartitionLeader("idle", p, p + 1);
const producer = await createKafka({
  brokers: mock.bootstrapServers.split(","),
  clientId: "bench",
  requestTimeoutMs: 10_000,
  connectionTimeoutMs: 3_000,
}).producer();
await producer.send([0, 1, 2].map((partition) => ({ topic: "idle", partition, key: null, value: null })));

async function idleCpuPercent(fix: boolean): Promise<number> {
  setKafkajsIdleFixEnabled(fix);
  // Without the fix the loop restarts only when a queue next schedules a check: nudge every connection once.
  await producer.send([0, 1, 2].map((partition) => ({ topic: "idle", partition, key: null, value: null })));
  await new Promise((r) => setTimeout(r, 200));
  const start = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, windowMs));
  const used = process.cpuUsage(start);
  return ((used.user + used.system) / 1000) / (performance.now() - t0) * 100;
}

const without: number[] = [];
const withFix: number[] = [];
for (let i = 0; i < rounds; i++) {
  without.push(await idleCpuPercent(false));
  withFix.push(await idleCpuPercent(true));
}
await producer.close();

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (xs: number[]) =>
  `${avg(xs).toFixed(2)} % of a core (windows: ${xs.map((x) => x.toFixed(2)).join(", ")})`;
console.log(`kafkajs producer idle, 3 broker connections, ${rounds} × ${windowMs / 1000} s windows each`);
console.log(`  without idle fix: ${fmt(without)}`);
console.log(`  with idle fix:    ${fmt(withFix)}`);
