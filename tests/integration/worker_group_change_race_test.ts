/**
 * A config change right after a rebalance, in a worker group with deletion capture (two real daemon processes,
 * the real Kafka broker), while rows keep changing and being deleted:
 * - member A runs both tasks of a 2-table source (`tasks.max: 2`); member B joins, and task 1 (one table) moves
 *   from A to B: A stops it in one round (final offsets written), B starts it in the next;
 * - the moment B has taken task 1 (its "took the group assignment" line with `"gained":1`), before its
 *   RUNNING status is likely to have reached A, `PUT /connectors/src/config` with `tasks.max: 1` goes to A:
 *   A's task 0 takes both tables. A must not start it while B still runs task 1 on the old config: both would
 *   read B's table from the same offset and send each change twice;
 * - back on `tasks.max: 2` (one task on each member), the member running task 1 leaves gracefully and, right
 *   after it left, `tasks.max: 1` goes to the member that stays, which is taking task 1 over meanwhile.
 * Read back after each, the topics hold every row's current version and a tombstone per deleted row, and no
 * row version and no tombstone twice: the join, the leave and the changes moved tables without repeats.
 */
import { assertEquals } from "../support/assert.ts";
import { uniqueName } from "../support/kafka_broker.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { repeated, topicVersions } from "../support/topic_versions.ts";
import { allOnTopics, changeTables, deleteOverApi } from "../support/table_changes.ts";
import { capturingSource, groupWorker, handoverFixture, statusOn } from "../support/group_handover.ts";

const PASSWORD = "pw-Race-Dunlin-3";
const TABLES = ["incident", "problem"];
const P = uniqueName("race");

const host = (m: DaemonProcess) => new URL(m.url).host;

const status = (member: DaemonProcess) => statusOn(member, "src");

Deno.test({
  name:
    "worker group: a config change right after a member joined or left sends no row version or tombstone twice",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using fixture = await handoverFixture(P, PASSWORD, TABLES);
    const { sim, bootstrap, topics } = fixture;
    const source = capturingSource(sim.url, PASSWORD, topics, 200);
    const worker = groupWorker(bootstrap, P, { "task.shutdown.graceful.timeout.ms": 20000 });
    const members: DaemonProcess[] = [];
    const deleted: string[] = [];
    let writing = false;
    let writer: Promise<void> = Promise.resolve();
    // Rows change and are deleted throughout a handover and the change after it. sysIds() lists rows by
    // sys_updated_on, so the row just changed can come round again within the same second: a second version
    // under one timestamp, which the source sends too (topic_versions.ts tells versions by sys_mod_count).
    const startWriting = () => {
      writing = true;
      writer = (async () => {
        for (let n = 0; writing; n++) {
          const t = TABLES[n % 2];
          const ids = sim.table(t).sysIds();
          if (n % 9 === 8) {
            const id = ids[ids.length - 1];
            await deleteOverApi(sim, PASSWORD, t, id);
            deleted.push(id);
          } else sim.table(t).update(ids[(n >> 1) % ids.length], { short_description: `during ${n}` });
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
    };
    const stopWriting = async () => {
      await new Promise((r) => setTimeout(r, 2000));
      writing = false;
      await writer;
    };
    /** Waits until every member shows `count` running tasks, the same way. */
    const settled = (count: number) =>
      waitFor(
        async () => {
          const views = await Promise.all(members.map(status));
          const tasks = views[0]?.tasks ?? [];
          return tasks.length === count && tasks.every((t) => t.state === "RUNNING") &&
              views.every((v) => JSON.stringify(v?.tasks) === JSON.stringify(tasks))
            ? tasks
            : null;
        },
        90_000,
        `${count} running task(s), as every member sees them`,
      );
    const sentOnce = async (label: string, when: string) => {
      deleted.push(...await changeTables(sim, PASSWORD, TABLES, 1, 2, label));
      await allOnTopics(bootstrap, sim, topics, deleted);
      await new Promise((r) => setTimeout(r, 3000)); // anything re-read and sent again would have landed
      for (const t of TABLES) {
        const seen = await topicVersions(bootstrap, topics[t]);
        assertEquals(repeated(seen), [], `${t}: sent twice ${when}`);
      }
    };
    try {
      const a = await startDaemonProcess({ worker, connectors: [{ name: "src", config: source }] }, {
        timeoutMs: 60_000,
      });
      members.push(a);
      await waitFor(
        async () => {
          const tasks = (await status(a))?.tasks ?? [];
          return tasks.length === 2 && tasks.every((t) => t.state === "RUNNING" && t.worker_id === host(a));
        },
        90_000,
        "both tasks running on member A",
      );
      await allOnTopics(bootstrap, sim, topics, []);

      startWriting();
      const b = await startDaemonProcess({ worker, connectors: [] }, { timeoutMs: 60_000 });
      members.push(b);
      // B logs this once it has started task 1's worker, before the worker runs and reports RUNNING, which
      // A reads from the status topic later still: A's view shows task 1 as A's own UNASSIGNED of the round before.
      await waitFor(
        () => b.output().split("\n").some((l) => /took the group assignment/.test(l) && /"gained":1/.test(l)),
        60_000,
        "member B taking task 1",
      );
      const put = await a.request("PUT", "/connectors/src/config", { ...source, "tasks.max": 1 });
      assertEquals(put.status, 200, JSON.stringify(put.body));
      await settled(1);
      await stopWriting();
      await sentOnce("joined", "across the join and the change");

      // Back to two tasks, one on each member; then the member running task 1 leaves (SIGTERM) and, right after
      // it left, tasks.max 1 goes to the member that stays, which takes the task over meanwhile.
      const back = await a.request("PUT", "/connectors/src/config", { ...source, "tasks.max": 2 });
      assertEquals(back.status, 200, JSON.stringify(back.body));
      const tasks = await settled(2);
      assertEquals(new Set(tasks.map((t) => t.worker_id)).size, 2, JSON.stringify(tasks));
      startWriting();
      const leaving = members.find((m) => host(m) === tasks.find((t) => t.id === 1)!.worker_id)!;
      const staying = members.find((m) => m !== leaving)!;
      assertEquals((await leaving.stop("SIGTERM")).code, 0);
      members.splice(members.indexOf(leaving), 1);
      const put1 = await staying.request("PUT", "/connectors/src/config", { ...source, "tasks.max": 1 });
      assertEquals(put1.status, 200, JSON.stringify(put1.body));
      await settled(1);
      await stopWriting();
      await sentOnce("left", "across the leave and the change");
    } catch (e) {
      for (const m of members) console.log(`--- ${host(m)}\n${m.output().split("\n").slice(-60).join("\n")}`);
      throw e;
    } finally {
      writing = false;
      await writer.catch(() => {});
      await Promise.all(members.map((m) => m.stop("SIGTERM").catch(() => {})));
    }
  },
});
