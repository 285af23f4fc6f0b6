/**
 * librdkafka's mock cluster in its own process, driven by JSON lines on stdin (see kafka_mock_process.ts).
 *
 * Standalone use (for trying things by hand; the demo and benchmarks use the real broker now):
 *   deno run --allow-ffi tests/support/kafka_mock_child.ts --brokers 1 --topics a:4,b:1
 * prints one line `{"bootstraps":"127.0.0.1:port,..."}` and stays up until stdin reaches EOF or SIGTERM/SIGINT.
 * Topics are `name:partitions[:replicationFactor]`.
 *
 * Commands (one JSON object per line), each answered by one line `{"ok":true}` or `{"ok":false,"error":"…"}`:
 *   {"op":"createTopic","name":"t","partitions":4,"replicationFactor":1}
 *   {"op":"brokerDown","brokerId":1}  {"op":"brokerUp","brokerId":1}
 *   {"op":"setRtt","brokerId":1,"rttMs":500}
 *   {"op":"pushRequestErrors","apiKey":0,"codes":[6,7]}
 *   {"op":"setPartitionLeader","topic":"t","partition":0,"brokerId":2}
 * Exiting on stdin EOF means the mock can never outlive the process that started it.
 */
import { startKafkaMock } from "./kafka_mock.ts";

interface Command {
  op: string;
  [field: string]: unknown;
}

function parseArgs(args: string[]): { brokers: number; topics: Array<[string, number, number]> } {
  let brokers = 1;
  const topics: Array<[string, number, number]> = [];
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1];
    if (args[i] === "--brokers") {
      brokers = Number(value);
      i++;
    } else if (args[i] === "--topics") {
      for (const spec of (value ?? "").split(",").filter((s) => s !== "")) {
        const [name, partitions = "1", rf = "1"] = spec.split(":");
        topics.push([name, Number(partitions), Number(rf)]);
      }
      i++;
    } else {
      throw new Error(`unknown argument ${args[i]} (use --brokers N --topics name:partitions[:rf],...)`);
    }
  }
  if (!Number.isInteger(brokers) || brokers < 1) throw new Error("--brokers must be a positive integer");
  return { brokers, topics };
}

const { brokers, topics } = parseArgs(Deno.args);
const mock = startKafkaMock({ brokers });
for (const [name, partitions, rf] of topics) mock.createTopic(name, partitions, Math.min(rf, brokers));

const encoder = new TextEncoder();
const writeLine = (value: unknown) => Deno.stdout.writeSync(encoder.encode(JSON.stringify(value) + "\n"));

function shutdown(): never {
  mock.close();
  Deno.exit(0);
}
for (const signal of ["SIGTERM", "SIGINT"] as const) Deno.addSignalListener(signal, shutdown);

writeLine({ bootstraps: mock.bootstrapServers, brokers, pid: Deno.pid });

function execute(cmd: Command): void {
  const n = (field: string) => {
    const v = cmd[field];
    if (typeof v !== "number") throw new Error(`${cmd.op}: ${field} must be a number`);
    return v;
  };
  const s = (field: string) => {
    const v = cmd[field];
    if (typeof v !== "string") throw new Error(`${cmd.op}: ${field} must be a string`);
    return v;
  };
  switch (cmd.op) {
    case "createTopic":
      return mock.createTopic(s("name"), n("partitions"), (cmd.replicationFactor as number | undefined) ?? 1);
    case "brokerDown":
      return mock.brokerDown(n("brokerId"));
    case "brokerUp":
      return mock.brokerUp(n("brokerId"));
    case "setRtt":
      return mock.setRtt(n("brokerId"), n("rttMs"));
    case "pushRequestErrors":
      return mock.pushRequestErrors(n("apiKey"), cmd.codes as number[]);
    case "setPartitionLeader":
      return mock.setPartitionLeader(s("topic"), n("partition"), n("brokerId"));
    default:
      throw new Error(`unknown op ${JSON.stringify(cmd.op)}`);
  }
}

const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
let buffered = "";
for await (const chunk of lines) {
  buffered += chunk;
  let newline: number;
  while ((newline = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, newline).trim();
    buffered = buffered.slice(newline + 1);
    if (line === "") continue;
    try {
      execute(JSON.parse(line));
      writeLine({ ok: true });
    } catch (e) {
      writeLine({ ok: false, error: (e as Error).message });
    }
  }
}
shutdown();
