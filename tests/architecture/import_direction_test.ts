/**
 * Dependencies point one way (docs/architecture.md): every relative import in src/ is checked against the rooms
 * its room may use. A new import against the direction (runtime → rest, instance → config, connect → instance,
 * anything → daemon) fails here with the file and the specifier. Two more rules: the main thread loads no
 * task-thread code (the thread boundary), and no file of src/ reaches itself through its imports (no circle).
 */
import { assertEquals } from "../support/assert.ts";
import { imports, resolve, sourceFiles, specifiers } from "./source_imports.ts";
import { circles, importGraph } from "./import_circles.ts";

/** Room → the rooms it may import. Files directly in src/ (version.ts) are usable by every room. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  observability: [],
  common: ["observability"],
  connect: ["common", "observability"],
  kafka: ["common", "observability"],
  instance: ["common", "observability"],
  config: ["common", "connect", "observability"],
  source: ["common", "config", "connect", "instance", "observability"],
  sink: ["common", "config", "connect", "instance", "kafka", "observability"],
  runtime: ["common", "config", "connect", "instance", "kafka", "observability", "source", "sink"],
  rest: ["common", "config", "connect", "observability", "runtime"],
  daemon: [
    "common",
    "config",
    "connect",
    "instance",
    "kafka",
    "observability",
    "rest",
    "runtime",
    "source",
    "sink",
  ],
  cli: ["common", "config", "daemon", "observability", "sim"],
  // The simulator is an independent implementation of the instance: it shares nothing with the client.
  sim: ["observability"],
};

function roomOf(path: string): string | null {
  const parts = path.split("/");
  return parts.length > 2 ? parts[1] : null;
}

/** The imports of `files` (path under src/ → text) that run against the direction, as `file: specifier`. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of files) {
    const room = roomOf(path);
    if (room === null) continue;
    for (const specifier of specifiers(text)) {
      if (!specifier.startsWith(".")) continue;
      const target = roomOf(resolve(path, specifier));
      if (target === null || target === room) continue;
      if (!(ALLOWED[room] ?? []).includes(target)) out.push(`${path}: ${specifier} (${room} → ${target})`);
    }
  }
  return out.sort();
}

Deno.test("imports in src/ follow the direction of dependencies", async () => {
  const relative = await sourceFiles("src");
  assertEquals(
    Object.keys(ALLOWED).sort(),
    [...new Set([...relative.keys()].map(roomOf))].filter((r) => r !== null).sort(),
  );
  assertEquals(violations(relative), []);
});

Deno.test("the check names an import against the direction", () => {
  const files = new Map([
    ["src/runtime/a.ts", 'import { startRestServer } from "../rest/server.ts";\nimport { x } from "./b.ts";'],
    ["src/instance/b.ts", 'import type { DaemonConfig } from "../config/load.ts";'],
    ["src/connect/c.ts", 'export { loadStore } from "../instance/tls/keystore.ts";'],
    ["src/source/d.ts", 'import { TableClient } from "../instance/mod.ts";'],
  ]);
  assertEquals(violations(files), [
    "src/connect/c.ts: ../instance/tls/keystore.ts (connect → instance)",
    "src/instance/b.ts: ../config/load.ts (instance → config)",
    "src/runtime/a.ts: ../rest/server.ts (runtime → rest)",
  ]);
});

/**
 * The thread boundary: code of the main thread never loads code of a task thread. A type-only import is allowed
 * (it is erased: the main thread's task runner names the messages of `task/thread_messages.ts`).
 */
const MAIN_THREAD = ["runtime/herder.ts", "runtime/herder/", "runtime/group/", "daemon/", "rest/", "cli/"];
const TASK_THREAD = ["runtime/task/", "runtime/source_task/", "runtime/sink_task/", "source/", "sink/"];
/**
 * The daemon plugs the connectors in: a connector's Connector half (its config checks and task configs) runs in
 * the main thread, as in Kafka Connect, and `tablesync verify` reads a source connector's settings.
 */
const MAIN_THREAD_MAY_LOAD: Readonly<Record<string, readonly string[]>> = { "daemon/": ["source/", "sink/"] };

function under(path: string, rooms: readonly string[]): string | undefined {
  return rooms.find((room) => path.startsWith(`src/${room}`));
}

/** The imports of `files` by which the main thread would load task-thread code, as `file: specifier`. */
function threadViolations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of files) {
    const main = under(path, MAIN_THREAD);
    if (main === undefined) continue;
    for (const { specifier, typeOnly } of imports(text)) {
      if (typeOnly || !specifier.startsWith(".")) continue;
      const task = under(resolve(path, specifier), TASK_THREAD);
      if (task === undefined || (MAIN_THREAD_MAY_LOAD[main] ?? []).includes(task)) continue;
      out.push(`${path}: ${specifier} (main thread ${main} → task thread ${task})`);
    }
  }
  return out.sort();
}

Deno.test("the main thread loads no task-thread code", async () => {
  assertEquals(threadViolations(await sourceFiles("src")), []);
});

Deno.test("the thread check names a value import across the boundary and lets a type-only one pass", () => {
  const files = new Map([
    ["src/runtime/herder/a.ts", 'import type { StartMessage } from "../task/thread_messages.ts";'],
    ["src/runtime/herder/b.ts", 'import { transactionalIdOf } from "../source_task/exactly_once_task.ts";'],
    ["src/rest/c.ts", 'import { SinkTask } from "../sink/task.ts";'],
    ["src/daemon/d.ts", 'import { SourceConnector } from "../source/connector.ts";'],
    ["src/daemon/e.ts", 'import { collectWhenQuiet } from "../runtime/task/idle_collection.ts";'],
    ["src/runtime/task/f.ts", 'import { TaskRunner } from "../herder/task_runner.ts";'],
  ]);
  assertEquals(threadViolations(files), [
    "src/daemon/e.ts: ../runtime/task/idle_collection.ts (main thread daemon/ → task thread runtime/task/)",
    "src/rest/c.ts: ../sink/task.ts (main thread rest/ → task thread sink/)",
    "src/runtime/herder/b.ts: ../source_task/exactly_once_task.ts (main thread runtime/herder/ → task thread runtime/source_task/)",
  ]);
});

Deno.test("src/ has no import circle", async () => {
  assertEquals(circles(importGraph(await sourceFiles("src"))), []);
});

Deno.test("the circle check finds circles of any length, type-only imports too", () => {
  const files = new Map([
    ["src/a/one.ts", 'import { two } from "./two.ts";'],
    ["src/a/two.ts", 'import type { One } from "./one.ts";'],
    ["src/b/x.ts", 'import { y } from "./y.ts";\nimport { free } from "./free.ts";'],
    ["src/b/y.ts", 'export { z } from "../c/z.ts";'],
    ["src/c/z.ts", 'import { x } from "../b/x.ts";'],
    ["src/b/free.ts", 'import { z } from "../c/z.ts";'],
    ["src/d/self.ts", 'import { again } from "./self.ts";'],
    ["src/d/leaf.ts", 'import { one } from "../a/one.ts";'],
  ]);
  assertEquals(circles(importGraph(files)), [
    ["src/a/one.ts", "src/a/two.ts"],
    ["src/b/free.ts", "src/c/z.ts", "src/b/x.ts"],
    ["src/d/self.ts"],
  ]);
});
