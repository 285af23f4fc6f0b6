/**
 * Writes the instance refuses or bends, through the real daemon and a real broker, with `errors.tolerance=all`, a
 * dead letter queue and `behavior.on.api.errors` left unset: each refused record lands in the dead letter queue
 * with its class (`tablesync.errors.write.class`) and the instance's words (`tablesync.errors.instance.message`)
 * and in the error reporter; the task goes on; every other record is stored exactly as sent (an HTML page on
 * the way is retried, never taken as done); no row changes that the records did not name. A source whose filter
 * names a field the table lacks, and a sink whose correlation field the table lacks, are refused at start.
 *
 * `TABLESYNC_PRINT_DLQ=1` prints the dead letter queue records (the docs show them).
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceWithKcat, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { sinkConnectorConfig } from "../support/sink_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { installRefusals } from "../../scripts/demo_refusals.ts";

const PASSWORD = "pw-Refusal-Heron-41";
const GHOST = "0123456789abcdef0123456789abcdef";

/** The user fields of a row: the system fields change with every write. */
function userFields(row: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(row ?? {}).filter(([k]) => !k.startsWith("sys_")));
}

Deno.test({
  name: "refused writes land in the dead letter queue by class; the rest is stored exactly as sent",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({ seed: { incident: 30 }, users: [`admin:${PASSWORD}`] });
    // The demo's rules: a business rule that aborts, a data policy, a record ACL, a field ACL, the quota.
    installRefusals(sim);
    // One update meets a hibernation page on its way: retried, then written.
    sim.faults.add({
      route: "PATCH /api/now/table/incident/{sys_id}",
      fault: { kind: "html_page", page: "hibernating" },
      times: 1,
    });
    await using kafka = await startKafkaBroker();
    const [input, dlq, errors] = [uniqueName("wr.in"), uniqueName("wr.dlq"), uniqueName("wr.errors")];
    await kafka.createTopic(input, 1);
    await kafka.createTopic(errors, 1);
    const incident = sim.table("incident");
    const ids = incident.sysIds();
    const before = new Map(ids.map((id) => [id, userFields(incident.get(id))]));

    const plain = ids.slice(0, 10).map((id, i) => ({
      id,
      value: { short_description: `plain ${i}`, close_notes: `notes ${i}` },
    }));
    const refused: Array<
      { key: string | null; value: Record<string, string>; class: string; message: string }
    > = [
      {
        key: ids[10],
        value: { category: "vip", short_description: "vip" },
        class: "business_rule_abort",
        message: "Operation against file 'incident' was aborted by Business Rule 'Block VIP close^",
      },
      {
        key: ids[11],
        value: { close_notes: "closing", close_code: "" },
        class: "data_policy",
        message: "Data Policy Exception: \n\tThe following fields are mandatory: Close Code",
      },
      {
        key: ids[12],
        value: { category: "secret" },
        class: "acl_denied",
        message: "ACL Exception Update Failed due to security constraints",
      },
      {
        key: GHOST,
        value: { short_description: "ghost" },
        class: "not_found",
        message: "No Record found",
      },
      {
        key: ids[13],
        value: { short_description: "bogus", u_bogus: "x" },
        class: "invalid_field",
        message: "",
      },
      {
        key: null,
        value: { short_description: "slow create" },
        class: "quota_cancelled",
        message: "Transaction cancelled: maximum execution time exceeded",
      },
      {
        key: ids[14],
        value: { description: "locked value" },
        class: "not_written",
        message: "",
      },
    ];
    const line = (key: string | null, value: Record<string, string>) =>
      `${key ?? ""}\t${JSON.stringify(value)}`;
    await produceWithKcat(kafka.bootstrapServers, input, [
      ...plain.slice(0, 5).map((p) => line(p.id, p.value)),
      ...refused.map((r) => line(r.key, r.value)),
      ...plain.slice(5).map((p) => line(p.id, p.value)),
      line(null, { short_description: "plain create" }),
    ], true);

    const daemon = await startDaemonProcess({
      worker: { "bootstrap.servers": kafka.bootstrapServers },
      connectors: [
        {
          name: "refusals",
          config: sinkConnectorConfig(sim.url, PASSWORD, {
            topics: input,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": false,
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": 1,
            "errors.deadletterqueue.context.headers.enable": true,
            "svc.sink.reporter.bootstrap.servers": kafka.bootstrapServers,
            "svc.sink.reporter.error.topic": errors,
            "svc.retry.initial.backoff.ms": 50,
          }),
        },
        {
          name: "typo-filter",
          config: sourceConnectorConfig(sim.url, PASSWORD, { incident: uniqueName("wr.src") }, {
            "svc.table.incident.query": "active=true^categroy=network",
          }),
        },
        {
          name: "typo-correlation",
          config: sinkConnectorConfig(sim.url, PASSWORD, {
            topics: uniqueName("wr.in2"),
            "svc.sink.create.ambiguous.behavior": "correlation_lookup",
            "svc.sink.correlation.field": "correlaton_id",
          }),
        },
      ],
    });
    try {
      const dead = await waitFor(
        async () => {
          const records = await readTopicWithKcat(kafka.bootstrapServers, dlq).catch(() => []);
          return records.length >= refused.length ? records : null;
        },
        60_000,
        "every refused record in the dead letter queue",
      );
      if (Deno.env.get("TABLESYNC_PRINT_DLQ") === "1") console.log(JSON.stringify(dead, null, 2));
      assertEquals(dead.length, refused.length);
      assertEquals(
        dead.map((d) => d.headers["tablesync.errors.write.class"]).sort(),
        refused.map((r) => r.class).sort(),
      );
      for (const r of refused) {
        const found = dead.find((d) => d.headers["tablesync.errors.write.class"] === r.class)!;
        assertEquals(JSON.parse(found.value!), r.value, r.class);
        assertEquals(found.headers["__connect.errors.topic"], input);
        assertEquals(
          found.headers["__connect.errors.exception.class.name"],
          "SinkRecordError",
          r.class,
        );
        if (r.message) assertStringIncludes(found.headers["tablesync.errors.instance.message"], r.message);
      }
      const byClass = (c: string) =>
        dead.find((d) => d.headers["tablesync.errors.write.class"] === c)!
          .headers["__connect.errors.exception.message"];
      assertStringIncludes(byClass("business_rule_abort"), 'business rule "Block VIP close" aborted it');
      assertStringIncludes(byClass("data_policy"), "a data policy makes mandatory: Close Code");
      assertStringIncludes(
        byClass("not_written"),
        `not_written: description (table "incident", sys_id ${ids[14]})`,
      );
      assertStringIncludes(byClass("invalid_field"), 'table "incident" has no field "u_bogus"');
      assertStringIncludes(
        byClass("quota_cancelled"),
        "the instance's transaction quota cancelled the create",
      );

      const reports = await waitFor(
        async () => {
          const r = await readTopicWithKcat(kafka.bootstrapServers, errors);
          return r.length >= refused.length ? r.map((x) => JSON.parse(x.value!)) : null;
        },
        30_000,
        "an error report per refused record",
      );
      assertEquals(reports.map((r) => r.classification).sort(), refused.map((r) => r.class).sort());
      assertStringIncludes(
        reports.find((r) => r.classification === "acl_denied").instance_message,
        "ACL Exception Update Failed due to security constraints",
      );

      // Every other record stored exactly as sent, past the refusals and the hibernation page.
      await waitFor(
        () => incident.sysIds().some((id) => incident.get(id)?.short_description === "plain create"),
        30_000,
        "the last record written",
      );
      for (const p of plain) {
        const row = incident.get(p.id)!;
        assertEquals([row.short_description, row.close_notes], [
          p.value.short_description,
          p.value.close_notes,
        ]);
      }
      assertEquals(
        incident.sysIds().filter((id) => !before.has(id)).map((id) => incident.get(id)!.short_description),
        ["plain create"],
        "one row created: no quota-cancelled duplicate",
      );
      const written = new Set(plain.map((p) => p.id));
      for (const id of ids.filter((id) => !written.has(id))) {
        assertEquals(userFields(incident.get(id)), before.get(id), `row ${id} changed`);
      }
      assert(sim.journal.entries().some((e) => e.faults.includes("html_page")), "the HTML page was met");

      const status = async (name: string) => (await daemon.request("GET", `/connectors/${name}/status`)).body;
      assertEquals((await status("refusals")).tasks[0].state, "RUNNING");
      const failed = async (name: string) =>
        await waitFor(
          async () => {
            const task = (await status(name)).tasks?.[0];
            return task?.state === "FAILED" ? task : null;
          },
          30_000,
          `${name} fails at start`,
        );
      assertStringIncludes(
        (await failed("typo-filter")).trace,
        "svc.table.incident.query names field categroy",
      );
      assertStringIncludes(
        (await failed("typo-correlation")).trace,
        "svc.sink.correlation.field names field correlaton_id, which table incident does not have",
      );
    } finally {
      await daemon.stop();
      await sim.stop();
    }
  },
});
