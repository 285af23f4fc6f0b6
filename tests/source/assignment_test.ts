/** Tables to tasks: balanced rendezvous hashing (balance, stability, determinism) and the task configs handed out. */
import { assert, assertEquals } from "../support/assert.ts";
import { type AssignableTable, assignTables } from "../../src/source/assignment.ts";
import { tableSourceConnector, taskConfigFor } from "../../src/source/connector.ts";
import { analyzeConnector } from "../../src/config/connector_config.ts";
import type { RawConfig } from "../../src/common/props.ts";

const tablesOf = (names: readonly string[]): AssignableTable[] =>
  names.map((name) => ({ alias: name, identity: `${name}\u0000fp` }));
const names = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `table_${from + i}`);

/** alias → task index. */
function slots(groups: string[][]): Map<string, number> {
  return new Map(groups.flatMap((aliases, task) => aliases.map((a) => [a, task] as [string, number])));
}

/** Tables whose task differs between two assignments (tables in only one of them are not counted). */
function moved(a: string[][], b: string[][]): string[] {
  const after = slots(b);
  return [...slots(a)].filter(([alias, task]) => after.has(alias) && after.get(alias) !== task).map(([x]) =>
    x
  );
}

Deno.test("assignment: n tables on m tasks give min(n, m) tasks whose sizes differ by at most one", () => {
  for (let m = 1; m <= 9; m++) {
    for (let n = 0; n <= 40; n++) {
      const tables = tablesOf(names(n));
      const groups = assignTables(tables, m);
      assertEquals(groups.length, Math.min(n, m), `${n} tables, tasks.max ${m}`);
      const sizes = groups.map((g) => g.length);
      assert(sizes.every((s) => s >= 1), `an empty task for ${n} tables on ${m}: ${sizes}`);
      assert(n === 0 || Math.max(...sizes) - Math.min(...sizes) <= 1, `${n} tables on ${m}: ${sizes}`);
      assertEquals(groups.flat().sort(), tables.map((t) => t.alias).sort(), "each table exactly once");
    }
  }
});

/** Deterministic pseudo-random table names (xorshift32), so a failure names the seed that found it. */
function randomNames(seed: number, n: number): string[] {
  let x = seed || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0).toString(36);
  };
  return Array.from({ length: n }, (_, i) => `${next()}_${i}`);
}

Deno.test("assignment: any table names, 1..40 tables on 1..8 tasks: no task holds more than one table more", () => {
  for (let seed = 1; seed <= 25; seed++) {
    for (let m = 1; m <= 8; m++) {
      for (let n = 1; n <= 40; n++) {
        const sizes = assignTables(tablesOf(randomNames(seed * 1000 + n, n)), m).map((g) => g.length);
        assertEquals(sizes.length, Math.min(n, m));
        assert(Math.max(...sizes) - Math.min(...sizes) <= 1, `seed ${seed}: ${n} tables on ${m}: ${sizes}`);
      }
    }
  }
});

Deno.test("assignment: three tables on tasks.max 3 take one task each (the reported case)", () => {
  for (
    const set of [["t1", "t2", "t3"], ["incident", "change_request", "task"], [
      "incident",
      "problem",
      "sys_user",
    ]]
  ) {
    assertEquals(assignTables(tablesOf(set), 3).map((g) => g.length), [1, 1, 1], set.join(","));
  }
});

Deno.test("assignment: deterministic, whatever order svc.tables lists the tables in", () => {
  const tables = tablesOf(names(23));
  const reference = slots(assignTables(tables, 4));
  const reversed = slots(assignTables([...tables].reverse(), 4));
  const shuffled = slots(
    assignTables(
      [...tables].sort((a, b) => a.alias.length - b.alias.length || (a.alias < b.alias ? 1 : -1)),
      4,
    ),
  );
  assertEquals([...reversed].sort(), [...reference].sort());
  assertEquals([...shuffled].sort(), [...reference].sort());
});

Deno.test("assignment: adding or removing a table moves few others (about one on average), never many", () => {
  let changes = 0, moves = 0, most = 0;
  for (const m of [2, 3, 4, 8]) {
    for (let n = 1; n <= 30; n++) {
      const base = names(n);
      const before = assignTables(tablesOf(base), m);
      for (
        const [label, after] of [
          ["added", assignTables(tablesOf([...base, `new_${n}_${m}`]), m)],
          ["removed", assignTables(tablesOf(base.filter((_, i) => i !== n >> 1)), m)],
        ] as const
      ) {
        const count = moved(before, after).length;
        assert(count <= Math.min(n, m), `${label} one of ${n} tables on ${m} tasks moved ${count} others`);
        changes++;
        moves += count;
        most = Math.max(most, count);
      }
    }
  }
  // Dealing round-robin in name order would move every table after an inserted one (~8 here on average).
  assert(moves / changes < 1, `${moves} moves over ${changes} changes (at most ${most} at once)`);
  assert(most <= 3, `at most ${most} tables moved at once`);
});

Deno.test("assignment: tasks.max beyond the number of tables changes nothing", () => {
  const tables = tablesOf(names(5));
  for (let m = 5; m < 9; m++) assertEquals(assignTables(tables, m + 1), assignTables(tables, m));
});

Deno.test("assignment: two aliases of one identity are told apart by alias; tasks.max below 1 is refused", () => {
  const twins = [{ alias: "b", identity: "incident\u0000x" }, { alias: "a", identity: "incident\u0000x" }];
  assertEquals(assignTables(twins, 2).map((g) => g.length), [1, 1]);
  assertEquals(assignTables(twins, 2), assignTables([...twins].reverse(), 2));
  let error: unknown;
  try {
    assignTables(twins, 0);
  } catch (e) {
    error = e;
  }
  assert(error instanceof RangeError && /tasks.max must be at least 1/.test(error.message));
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
  assertEquals(configs.map((c) => c["svc.tables"].split(",").length).sort(), [1, 1, 2]);
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
