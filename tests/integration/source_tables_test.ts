/**
 * Source behaviour through the daemon that concerns tables and paging:
 *  - a backfill of 20,000 rows with a same-second bucket of 12,000 rows at batch size 5000 delivers every row
 *    once, in cursor order per partition, and the simulator's journal shows keyset queries only, counted only
 *    on the first page of a sweep;
 *  - five tables over one to five tasks each deliver everything;
 *  - an access error on one table does not stop the others;
 *  - the replay-with-overlap migration procedure delivers every row changed at or after T.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { type KcatRecord, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";
import { parseDateTimeUtc } from "../../src/config/validators.ts";

const PASSWORD = "pw-Tables-Lark-17";

function source(
  sim: Simulator,
  tables: Record<string, string>,
  extra: Record<string, string | number | boolean> = {},
) {
  const config: Record<string, string | number | boolean> = {
    "connector.class": "TableSourceConnector",
    "svc.url": sim.url,
    "svc.auth.username": "admin",
    "svc.auth.password": PASSWORD,
    "svc.tables": Object.keys(tables).join(","),
    "svc.source.poll.interval.ms": 300,
    ...extra,
  };
  for (const [alias, topic] of Object.entries(tables)) {
    config[`svc.table.${alias}.name`] = alias;
    config[`svc.table.${alias}.topic`] = topic;
  }
  return config;
}

async function readAll(
  bootstrap: string,
  topic: string,
  expected: number,
  timeoutMs = 60_000,
): Promise<KcatRecord[]> {
  return (await waitFor(
    async () => {
      const got = await readTopicWithKcat(bootstrap, topic);
      return got.length >= expected ? got : null;
    },
    timeoutMs,
    `${expected} records on ${topic}`,
  ).catch(() => null)) ?? await readTopicWithKcat(bootstrap, topic);
}

Deno.test("backfill of 20,000 rows with a 12,000-row same-second bucket: every row once, keyset queries only", async () => {
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 20000 },
    users: [`admin:${PASSWORD}`],
    journalLimit: 100_000,
  });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("bf.incident", 8);
  // 12,000 rows written in one second (a bulk import): more than two pages share one sys_updated_on.
  const incident = sim.table("incident");
  const ids = incident.sysIds();
  const bucketSecond = incident.get(ids[4000])!.sys_updated_on;
  for (const id of ids.slice(4000, 16000)) {
    incident.update(id, { sys_updated_on: bucketSecond }, { suppressAutoSysFields: true });
  }
  const biggest = incident.sameSecondBuckets(5001)[0];
  assert(biggest && biggest.count >= 12000, `seeded bucket: ${JSON.stringify(biggest)}`);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "bf",
      config: source(sim, { incident: "bf.incident" }, {
        "svc.source.batch.size": 5000,
        // A narrow projection keeps the mock broker under its 5 MiB per partition retention.
        "svc.table.incident.fields": "sys_id,sys_updated_on,number",
      }),
    }],
  });
  try {
    const records = await readAll(kafka.bootstrapServers, "bf.incident", 20000);
    assertEquals(records.length, 20000, daemon.output().slice(-2000));
    assertEquals(new Set(records.map((r) => r.key)).size, 20000);
    // Per partition, records are in cursor order (sys_updated_on, then sys_id).
    const byPartition = new Map<number, KcatRecord[]>();
    for (const r of records) byPartition.set(r.partition, [...(byPartition.get(r.partition) ?? []), r]);
    for (const list of byPartition.values()) {
      for (let i = 1; i < list.length; i++) {
        const a = JSON.parse(list[i - 1].value!);
        const b = JSON.parse(list[i].value!);
        const order = a.sys_updated_on < b.sys_updated_on ||
          (a.sys_updated_on === b.sys_updated_on && a.sys_id < b.sys_id);
        assert(order, `out of cursor order in partition ${list[i].partition} at offset ${list[i].offset}`);
      }
    }
    // Table reads only: the progress reporter's Aggregate API counts (/api/now/stats/incident) are not pages.
    const lists = sim.journal.find({ method: "GET", table: "incident" }).filter((e) =>
      e.route === "GET /api/now/table/incident"
    );
    assert(lists.length >= 5, `only ${lists.length} list requests`);
    for (const e of lists) {
      assertEquals(e.params.sysparm_offset, undefined, `sysparm_offset sent: ${e.queryString}`);
      // Only the first page of a sweep asks for a count (X-Total-Count); pages after a full one do not.
      if (e.params.sysparm_no_count !== "true") {
        assert(
          !e.params.sysparm_query?.includes("^ORsys_id>"),
          `a count after a full page: ${e.queryString}`,
        );
      }
    }
    // Pages (not the startup probe or clock reads, which ask for one row) are keyset queries of a full batch.
    const pages = lists.filter((e) => e.params.sysparm_limit !== "1");
    assert(pages.length >= 5, `only ${pages.length} page requests`);
    for (const e of pages) {
      assertEquals(e.params.sysparm_limit, "5000", e.queryString);
      assert(e.params.sysparm_query.endsWith("ORDERBYsys_updated_on^ORDERBYsys_id"), e.params.sysparm_query);
    }
    // The bucket was drained by sys_id: some request asked for rows of that very second after a sys_id.
    assert(
      lists.some((e) =>
        e.params.sysparm_query?.includes(`sys_updated_on>=${biggest.timestamp}^`) &&
        e.params.sysparm_query.includes("^ORsys_id>")
      ),
      "no request drained the same-second bucket by sys_id",
    );
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});

Deno.test("five tables over one to five tasks each deliver everything; an access error on one table does not stop the others", async () => {
  const tables = ["incident", "problem", "sys_user", "sys_user_group", "cmdb_ci"];
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 300, problem: 200, sys_user: 150, sys_user_group: 40, cmdb_ci: 120 },
    users: [`admin:${PASSWORD}`],
  });
  await using kafka = await startKafkaBroker();
  const connectors = [];
  for (let tasks = 1; tasks <= 5; tasks++) {
    const mapping: Record<string, string> = {};
    for (const t of tables) {
      mapping[t] = `five${tasks}.${t}`;
      await kafka.createTopic(`five${tasks}.${t}`, 1);
    }
    connectors.push({ name: `five${tasks}`, config: source(sim, mapping, { "tasks.max": tasks }) });
  }
  // A sixth connector whose problem table becomes forbidden once it runs.
  const isolated: Record<string, string> = { incident: "iso.incident", problem: "iso.problem" };
  for (const topic of Object.values(isolated)) await kafka.createTopic(topic, 1);
  connectors.push({ name: "iso", config: source(sim, isolated, { "svc.source.poll.interval.ms": 200 }) });
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors,
  });
  try {
    for (let tasks = 1; tasks <= 5; tasks++) {
      // Tables are assigned whole, balanced: min(tables, tasks.max) tasks, sizes within one.
      const status = await waitFor(
        async () => {
          const s = (await daemon.request("GET", `/connectors/five${tasks}/status`)).body;
          return s.tasks.length > 0 && s.tasks.every((t: any) => t.state === "RUNNING") ? s : null;
        },
        30_000,
        `five${tasks} running`,
      );
      assertEquals(status.tasks.length, tasks, `five${tasks}: ${status.tasks.length} tasks`);
      const perTask = (await daemon.request("GET", `/connectors/five${tasks}/tasks`)).body
        .map((t: any) => t.config["svc.tables"].split(",") as string[]);
      const sizes = perTask.map((aliases: string[]) => aliases.length);
      assert(Math.max(...sizes) - Math.min(...sizes) <= 1, `five${tasks}: tables per task ${sizes}`);
      const assigned = perTask.flat();
      assertEquals(
        assigned.sort(),
        [...tables].sort(),
        `five${tasks}: every table assigned to exactly one task`,
      );
      for (const t of tables) {
        const expected = sim.table(t).count;
        const records = await readAll(kafka.bootstrapServers, `five${tasks}.${t}`, expected);
        assertEquals(
          new Set(records.map((r) => r.key)).size,
          expected,
          `five${tasks}.${t}\n${daemon.output().slice(-3000)}`,
        );
      }
    }
    // Forbid the problem table, then change both tables: incident keeps flowing, problem does not, the task runs.
    await readAll(kafka.bootstrapServers, "iso.incident", 300);
    sim.faults.add({
      fault: { kind: "status", status: 403, message: "User Not Authorized" },
      table: "problem",
    });
    const changed = sim.table("incident").insert({ short_description: "after the access error" });
    sim.table("problem").insert({ short_description: "invisible" });
    const after = await readAll(kafka.bootstrapServers, "iso.incident", 301);
    assert(
      after.some((r) => r.key === changed.sys_id),
      "incident stopped flowing after problem was forbidden",
    );
    assertEquals((await daemon.request("GET", "/connectors/iso/status")).body.tasks[0].state, "RUNNING");
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});

Deno.test("replay with overlap: starting at T minus the overlap delivers every row changed at or after T", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 2000 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("mig.incident", 2);
  const table = sim.table("incident");
  const ids = table.sysIds();
  // T: the last successful poll time of the old connector, taken in the middle of the data.
  const t = table.get(ids[Math.floor(ids.length / 2)])!.sys_updated_on;
  const overlapSeconds = 60;
  const start = new Date(parseDateTimeUtc(t)! - overlapSeconds * 1000).toISOString().slice(0, 19).replace(
    "T",
    " ",
  );
  const mustHave = ids.filter((id) => table.get(id)!.sys_updated_on >= t);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "mig",
      config: source(sim, { incident: "mig.incident" }, { "svc.table.incident.start.timestamp": start }),
    }],
  });
  try {
    // Waits for the rows themselves, not a count: the overlap's rows (between start and T) count too.
    const read = () => readTopicWithKcat(kafka.bootstrapServers, "mig.incident");
    const records = (await waitFor(
      async () => {
        const got = await read();
        const keys = new Set(got.map((r) => r.key));
        return mustHave.every((id) => keys.has(id)) ? got : null;
      },
      60_000,
      `the ${mustHave.length} rows changed at or after T on mig.incident`,
    ).catch(() => null)) ?? await read();
    const keys = new Set(records.map((r) => r.key));
    const missing = mustHave.filter((id) => !keys.has(id));
    assertEquals(missing, []);
    // Rows from before start.timestamp are not delivered.
    for (const r of records) {
      assert(table.get(r.key!)!.sys_updated_on >= start, `row before the start: ${r.key}`);
    }
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
