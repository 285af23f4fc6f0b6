/**
 * Tables moving between members of a worker group with deletion capture (two real daemon processes, same
 * group.id, the real Kafka broker): rows, updates and deletions flow, one table on each member's task.
 * - `tasks.max: 1` moves one table to the other member's task: it resumes from the offsets its old task
 *   committed last (read from the offsets topic once that task reported itself stopped), with the versions
 *   and deletions it sent in the re-read window, so nothing comes again (and never the older rows);
 * - then the member running the task stops with SIGTERM and the other takes it over; more changes follow. Read
 *   back, each topic holds every row's current version and a tombstone for every deleted row, and the handover
 *   added no row version (sys_id, sys_updated_on) and no tombstone twice: the stopped task's final offsets list
 *   what it sent inside the re-read window, for the table's rows and for its audit stream's deletions alike.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { uniqueName } from "../support/kafka_broker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { repeated, topicVersions } from "../support/topic_versions.ts";
import { allOnTopics as onTopics, changeTables } from "../support/table_changes.ts";
import type { Simulator } from "../../src/sim/mod.ts";
import { capturingSource, groupWorker, handoverFixture, statusOn } from "../support/group_handover.ts";

const PASSWORD = "pw-Handover-Plover-5";
const TABLES = ["incident", "problem"];
const P = uniqueName("handover");

const host = (m: DaemonProcess) => new URL(m.url).host;
const topicsOf = Object.fromEntries(TABLES.map((t) => [t, `${P}.${t}`]));
const change = (sim: Simulator, deletes: number, updates: number, label: string) =>
  changeTables(sim, PASSWORD, TABLES, deletes, updates, label);
const allOnTopics = (bootstrap: string, sim: Simulator, deleted: readonly string[]) =>
  onTopics(bootstrap, sim, topicsOf, deleted);

const status = (member: DaemonProcess) => statusOn(member, "src");

Deno.test({
  name: "worker group: a graceful handover with deletion capture sends no row version and no tombstone twice",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using fixture = await handoverFixture(P, PASSWORD, TABLES);
    const { sim, bootstrap, topics } = fixture;
    const source = capturingSource(sim.url, PASSWORD, topics, 300);
    const worker = groupWorker(bootstrap, P);
    const members: DaemonProcess[] = [];
    try {
      members.push(
        ...await Promise.all(
          [[{ name: "src", config: source }], []].map((connectors) =>
            startDaemonProcess({ worker, connectors }, { timeoutMs: 60_000 })
          ),
        ),
      );
      // One task, one table, on each member.
      await waitFor(
        async () => {
          const views = await Promise.all(members.map(status));
          const tasks = views[0]?.tasks ?? [];
          return tasks.length === 2 && tasks.every((t) => t.state === "RUNNING") &&
            new Set(tasks.map((t) => t.worker_id)).size === 2 &&
            JSON.stringify(views[1]?.tasks) === JSON.stringify(tasks);
        },
        90_000,
        "one running task on each member",
      );
      await allOnTopics(bootstrap, sim, []);
      const deleted = await change(sim, 3, 3, "before");
      await allOnTopics(bootstrap, sim, deleted);
      await new Promise((r) => setTimeout(r, 1000)); // committed and written to the offsets topic

      // tasks.max 1: the table of task 1 moves to task 0, on the other member, from the offset task 1 committed
      // there: it does not start over. The change is made over REST on task 0's member, the successor, which
      // applies it at once (the other member reads it from the config topic): it waits for task 1 to report
      // itself stopped and reads the group's offsets before task 0 starts with both tables.
      const task0 = (await status(members[0]))!.tasks.find((t) => t.id === 0)!;
      const successor = members.find((m) => host(m) === task0.worker_id)!;
      const lastBefore = new Map<string, string>();
      for (const t of TABLES) {
        const { versions } = await topicVersions(bootstrap, `${P}.${t}`);
        lastBefore.set(t, [...versions.keys()].map((v) => v.split("|")[1]).sort().at(-1)!);
      }
      assertEquals(
        (await successor.request("PUT", "/connectors/src/config", { ...source, "tasks.max": 1 })).status,
        200,
      );
      const owner = await waitFor(
        async () => {
          const views = await Promise.all(members.map(status));
          const tasks = views[0]?.tasks ?? [];
          const same = JSON.stringify(views[1]?.tasks) === JSON.stringify(tasks);
          return tasks.length === 1 && tasks[0].state === "RUNNING" && same
            ? members.find((m) => host(m) === tasks[0].worker_id)
            : null;
        },
        90_000,
        "one running task, as both members see it",
      );
      deleted.push(...await change(sim, 1, 2, "moved"));
      await allOnTopics(bootstrap, sim, deleted);
      await new Promise((r) => setTimeout(r, 2000)); // anything re-read and sent again would have landed
      for (const t of TABLES) {
        const seen = await topicVersions(bootstrap, `${P}.${t}`);
        const windowStart = lastBefore.get(t)!.replace(" ", "T") + "Z";
        const from = new Date(Date.parse(windowStart) - 60_000).toISOString().slice(0, 19).replace("T", " ");
        const older = [...seen.versions].filter(([v, n]) => n > 1 && v.split("|")[1] < from);
        assertEquals(older, [], `${t}: versions before its re-read window sent again: it started over`);
        assertEquals(repeated(seen), [], `${t}: sent twice when it moved to the other member's task`);
      }

      // The member running the task leaves gracefully: the task moves to the other member from the offsets it
      // committed last, which list what it sent in the re-read windows.
      const leaving = owner!;
      const staying = members.find((m) => m !== leaving)!;
      assertEquals((await leaving.stop("SIGTERM")).code, 0);
      members.splice(members.indexOf(leaving), 1);
      const finals = (await readTopicWithKcat(bootstrap, `${P}.offsets`))
        .filter((r) => r.value !== null && "overlap_sent" in JSON.parse(r.value))
        .map((r) => JSON.parse(r.key!)[1] as Record<string, string>);
      assert(
        finals.some((p) => p.stream === "deletes"),
        `the delete stream's final offset lists what it sent`,
      );
      await waitFor(
        async () => {
          const tasks = (await status(staying))?.tasks ?? [];
          return tasks.length === 1 && tasks[0].state === "RUNNING" && tasks[0].worker_id === host(staying);
        },
        90_000,
        "the task running on the other member",
      );

      deleted.push(...await change(sim, 2, 2, "after"));
      await allOnTopics(bootstrap, sim, deleted);
      await new Promise((r) => setTimeout(r, 3000)); // anything re-read and sent again would have landed
      for (const t of TABLES) {
        const seen = await topicVersions(bootstrap, `${P}.${t}`);
        assertEquals(repeated(seen), [], `${t}: sent twice across the graceful handover`);
        const tombstones = [...seen.tombstones.keys()];
        assertEquals(tombstones.length, 6, `${t}: a tombstone for each of its 6 deleted rows`);
      }
    } catch (e) {
      for (const m of members) console.log(`--- ${host(m)}\n${m.output().split("\n").slice(-40).join("\n")}`);
      throw e;
    } finally {
      await Promise.all(members.map((m) => m.stop("SIGTERM").catch(() => {})));
    }
  },
});
