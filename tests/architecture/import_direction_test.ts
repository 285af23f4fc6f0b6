/**
 * Dependencies point one way (docs/architecture.md): every relative import in src/ is checked against the rooms
 * its room may use. A new import against the direction (runtime → rest, instance → config, connect → instance,
 * anything → daemon) fails here with the file and the specifier.
 */
import { assertEquals } from "../support/assert.ts";
import { resolve, sourceFiles, specifiers } from "./source_imports.ts";

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
