/**
 * Runs a command with one Kafka broker for its whole duration, shared by every process the command starts:
 *
 *   deno run -A tests/support/with_kafka_broker.ts deno test --allow-all --parallel tests/
 *
 * Starts the broker (kafka_broker_process.ts), prints its start-up time and memory, runs the command with
 * $TABLESYNC_TEST_KAFKA_BOOTSTRAP set (kafka_broker.ts reads it), stops the broker, prints its peak memory and
 * exits with the command's exit code. `deno task test` and scripts/test use it.
 */
import { BOOTSTRAP_ENV } from "./kafka_broker.ts";
import { brokerMemory, describeBroker, launchKafkaBroker, stopKafkaBroker } from "./kafka_broker_process.ts";

if (Deno.args.length === 0) {
  console.error("usage: with_kafka_broker.ts COMMAND [ARGS...]");
  Deno.exit(2);
}

const broker = await launchKafkaBroker();
console.error(`[kafka] ${describeBroker(broker)}`);
// "deno" means this deno, whatever PATH says.
const command = Deno.args[0] === "deno" ? Deno.execPath() : Deno.args[0];
const child = new Deno.Command(command, {
  args: Deno.args.slice(1),
  env: { [BOOTSTRAP_ENV]: broker.bootstrapServers },
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
// Ctrl-C reaches the whole foreground process group (the command too); this process waits for the command, then
// stops the broker.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    try {
      child.kill(signal);
    } catch { /* already exited */ }
  });
}
const status = await child.status;
const memory = brokerMemory(broker.pid);
await stopKafkaBroker(broker);
console.error(`[kafka] broker stopped; peak RSS ${memory?.peakMiB ?? "?"} MiB`);
Deno.exit(status.code);
