/**
 * What verified writes (`svc.sink.verify.writes`) cost per write: the sink's writer (src/sink/writer.ts, the
 * instance client included) updates existing rows of a simulator running in a process of its own, with
 * verification on and off, alternating over `--rounds` rounds so that a drift of the machine's load weighs on
 * both alike. Printed per write: the bytes of the request's query string and of the answer's body (the row
 * rendered as the simulator sends it), and this process's CPU (the writer, the HTTP client, JSON parsing and
 * the comparison; the simulator's CPU is not in it). Figures are printed, never asserted.
 *
 *   deno run -A bench/verified_writes.ts [--writes 4000] [--fields 8] [--concurrency 8] [--rounds 3]
 */
import { instanceSettingsFromProps, TableClient } from "../src/instance/mod.ts";
import { RowCreator } from "../src/sink/ambiguous_create.ts";
import { DictionaryCache } from "../src/sink/dictionary_cache.ts";
import { RecordWriter } from "../src/sink/writer.ts";
import { WriteVerifier } from "../src/sink/write_verify.ts";
import type { WritePlan } from "../src/sink/write_plan.ts";
import { analyzeConnector } from "../src/config/connector_config.ts";
import { arg, fmt, ownCpuSeconds, startSimulatorProcess } from "./support/processes.ts";

const writes = arg("writes", 4000);
const fieldCount = arg("fields", 8);
const concurrency = arg("concurrency", 8);
const rounds = arg("rounds", 3);

/** Incident fields a sink typically writes, with a value generator each (strings, a choice, a number, a date). */
const FIELDS: Array<[string, (i: number) => string]> = [
  ["short_description", (i) => `Printer on floor ${i % 12} is jammed again (${i})`],
  [
    "description",
    (i) => `The printer near room ${i} shows error E${i % 97}; paper tray 2 is empty. `.repeat(3),
  ],
  ["category", (i) => ["inquiry", "software", "hardware", "network"][i % 4]],
  ["subcategory", (i) => `sub-${i % 7}`],
  ["close_notes", (i) => `Closed by the bench, round note ${i}`],
  ["contact_type", (i) => ["email", "phone", "self-service"][i % 3]],
  ["due_date", (i) => `2025-0${1 + (i % 9)}-1${i % 10} 08:30:00`],
  ["correlation_id", (i) => `EXT-${100000 + i}`],
  ["u_ticket_ref", (i) => `REF${i}`],
  ["business_stc", (i) => String(i % 1000)],
];

const sim = await startSimulatorProcess(`incident=${Math.min(writes, 5000)}`);
const config = {
  "connector.class": "TableSinkConnector",
  "topics": "bench",
  "svc.url": sim.url,
  "svc.auth.username": "admin",
  "svc.auth.password": "bench-pass",
  "svc.sink.table": "incident",
  "svc.http.max.concurrent.requests": String(concurrency),
};
const props = analyzeConnector(config, { worker: {} }).values as Parameters<
  typeof instanceSettingsFromProps
>[0];
const client = await TableClient.create(instanceSettingsFromProps(props));
const { rows } = await client.list("incident", {
  query: "",
  limit: Math.min(writes, 5000),
  fields: ["sys_id"],
});
const ids = rows.map((r) => String(r.sys_id));
const dictionaries = new DictionaryCache((table, signal) => client.dictionary(table, signal));
const columns = await dictionaries.columns("incident");
const fields = FIELDS.filter(([name]) => columns?.has(name)).slice(0, fieldCount);
console.log(
  `${fmt(writes)} updates per run of ${fields.length} fields (${fields.map(([f]) => f).join(", ")}), ` +
    `${concurrency} at a time, ${rounds} rounds; simulator in its own process`,
);

function writerOf(verify: boolean): RecordWriter {
  const creator = new RowCreator(client, {
    behavior: "fail_ambiguous",
    correlationField: null,
    updateMethod: "PATCH",
    resend: { maxAttempts: 1, initialBackoffMs: 1, maxBackoffMs: 1 },
  });
  return new RecordWriter(
    client,
    creator,
    { notFound: "fail", updateMethod: "PATCH" },
    new WriteVerifier({ enabled: verify, rewritten: new Set(), ignored: new Set() }),
    (table, signal) => dictionaries.types(table, signal),
  );
}

interface RunFigures {
  cpuMicrosPerWrite: number;
  writesPerSecond: number;
  queryBytes: number;
  answerBytes: number;
  errors: number;
}

async function run(verify: boolean, round: number): Promise<RunFigures> {
  const writer = writerOf(verify);
  let next = 0, errors = 0, queryBytes = 0, answerBytes = 0;
  const cpu0 = ownCpuSeconds(), t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < writes) {
      const i = next++;
      const body = Object.fromEntries(fields.map(([name, value]) => [name, value(i + round * writes)]));
      const plan = { operation: "update", table: "incident", sysId: ids[i % ids.length] } as WritePlan;
      const asked = verify ? ["sys_id", ...Object.keys(body)] : ["sys_id"];
      queryBytes += `sysparm_fields=${encodeURIComponent(asked.join(","))}`.length;
      try {
        const result = await writer.write(plan, body);
        answerBytes += JSON.stringify({ result: result.row ?? {} }).length;
      } catch (error) {
        if (errors++ === 0) {
          console.log(`first error (${verify ? "on" : "off"}): ${(error as Error).message}`);
        }
      }
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  return {
    cpuMicrosPerWrite: ((ownCpuSeconds() - cpu0) * 1e6) / writes,
    writesPerSecond: writes / seconds,
    queryBytes: queryBytes / writes,
    answerBytes: answerBytes / writes,
    errors,
  };
}

// One warm-up run each, not counted: the JIT and the connection pool.
await run(false, 0);
await run(true, 0);
const figures: Record<"off" | "on", RunFigures[]> = { off: [], on: [] };
for (let round = 1; round <= rounds; round++) {
  const order: Array<"off" | "on"> = round % 2 === 1 ? ["off", "on"] : ["on", "off"];
  for (const mode of order) figures[mode].push(await run(mode === "on", round));
}
const mean = (list: RunFigures[], key: keyof RunFigures) =>
  list.reduce((n, f) => n + f[key], 0) / list.length;
for (const mode of ["off", "on"] as const) {
  const list = figures[mode];
  console.log(
    `verification ${mode.padEnd(3)}: CPU ${fmt(mean(list, "cpuMicrosPerWrite"))} µs/write ` +
      `(rounds: ${list.map((f) => fmt(f.cpuMicrosPerWrite)).join(", ")}), ` +
      `query ${fmt(mean(list, "queryBytes"))} B/write, answer ${fmt(mean(list, "answerBytes"))} B/write, ` +
      `${fmt(mean(list, "writesPerSecond"))} writes/s, errors ${mean(list, "errors")}`,
  );
}
client.close();
await sim.stop();
