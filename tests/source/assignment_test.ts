/** Tables to tasks: rendezvous hashing (stability, spread) and the task configs the connector hands out. */
import { assert, assertEquals } from "../support/assert.ts";
import { assignTables, slotOf } from "../../src/source/assignment.ts";
import { tableSourceConnector, taskConfigFor } from "../../src/source/connector.ts";
import { analyzeConnector } from "../../src/config/connector_config.ts";
import type { RawConfig } from "../../src/common/props.ts";

const identities = Array.from({ length: 200 }, (_, i) => `table_${i}\u0000fp`);

Deno.test("rendezvous: growing tasks.max only moves tables onto the new slot", () => {
  for (let n = 1; n < 8; n++) {
    for (const id of identities) {
      const before = slotOf(id, n);
      const after = slotOf(id, n + 1);
      assert(after === before || after === n, `${id} moved from ${before} to ${after} going ${n}→${n + 1}`);
    }
  }
});

Deno.test("rendezvous: removing a table moves no other table; tables spread over the slots", () => {
  const tables = identities.map((identity, i) => ({ alias: `a${i}`, identity }));
  const full = assignTables(tables, 5);
  const without = assignTables(tables.filter((t) => t.alias !== "a7"), 5);
  const slotOfAlias = (groups: string[][], alias: string) => groups.findIndex((g) => g.includes(alias));
  for (const t of tables) {
    if (t.alias === "a7") continue;
    assertEquals(slotOfAlias(without, t.alias), slotOfAlias(full, t.alias), t.alias);
  }
  assertEquals(full.length, 5);
  for (const group of full) assert(group.length >= 20 && group.length <= 60, `unbalanced: ${group.length}`);
  assertEquals(full.flat().sort(), tables.map((t) => t.alias).sort(), "each table exactly once");
});

Deno.test("rendezvous: empty tasks are not started", () => {
  const groups = assignTables([{ alias: "inc", identity: "incident\u0000x" }], 10);
  assertEquals(groups, [["inc"]]);
});

function sourceRaw(aliases: Record<string, string>, extra: RawConfig = {}): RawConfig {
  const raw: RawConfig = {
    name: "s",
    "connector.class": "TableSourceConnector",
    "svc.url": "https://Dev1.Service-Now.com",
    "svc.auth.username": "u",
    "svc.auth.password": "p",
    "svc.tables": Object.keys(aliases).join(","),
    "value.converter.schemas.enable": "false",
    ...extra,
  };
  for (const [alias, table] of Object.entries(aliases)) {
    raw[`svc.table.${alias}.name`] = table;
    raw[`svc.table.${alias}.topic`] = `t.${alias}`;
  }
  return raw;
}

Deno.test("connector: task configs narrow svc.tables and drop other aliases' keys; each is a valid config", () => {
  const raw = sourceRaw({ inc: "incident", prb: "problem", usr: "sys_user", grp: "sys_user_group" });
  const props = analyzeConnector(raw, { worker: {} }).values;
  const configs = tableSourceConnector.taskConfigs(raw, props, 3);
  assert(configs.length >= 1 && configs.length <= 3);
  const assigned = configs.flatMap((c) => c["svc.tables"].split(","));
  assertEquals(assigned.sort(), ["grp", "inc", "prb", "usr"]);
  for (const c of configs) {
    const mine = new Set(c["svc.tables"].split(","));
    for (const key of Object.keys(c)) {
      const m = /^svc\.table\.([^.]+)\./.exec(key);
      if (m) assert(mine.has(m[1]), `${key} leaked into a task of ${[...mine]}`);
    }
    assertEquals(analyzeConnector(c, { worker: {} }).errors.size, 0, JSON.stringify(c));
    assertEquals(c["svc.url"], raw["svc.url"]);
  }
});

Deno.test("connector: renaming an alias keeps its table on the same task", () => {
  const a = sourceRaw({ inc: "incident", prb: "problem", usr: "sys_user" });
  const b = sourceRaw({ incidents: "incident", prb: "problem", usr: "sys_user" });
  const tasksOf = (raw: RawConfig) =>
    tableSourceConnector.taskConfigs(raw, analyzeConnector(raw, { worker: {} }).values, 3)
      .map((c) => c["svc.tables"].split(",").map((x) => x === "incidents" ? "inc" : x).sort().join(","));
  assertEquals(tasksOf(b).sort(), tasksOf(a).sort());
  assertEquals(taskConfigFor(a, ["prb"])["svc.tables"], "prb");
});
