/** Reporter records on a (librdkafka mock) broker: shape, key, topics, redaction, and a missing topic. */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { RetriableException } from "../../src/connect/task_api.ts";
import { ReporterTopicMissingError } from "../../src/sink/reporter.ts";
import { PASSWORD, seedIncident, startHarness } from "./support/harness.ts";
import { mapValue, sinkRecord } from "./support/records.ts";

Deno.test("success and error records: JSON keyed by sys id, with source coordinates; credentials redacted", async () => {
  await using kafka = startKafkaMock();
  kafka.createTopic("sink-ok", 1);
  kafka.createTopic("sink-errors", 1);
  await using h = await startHarness({
    config: {
      "behavior.on.api.errors": "log",
      // One write at a time, so the fault below meets the second PATCH (offset 12) only.
      "svc.sink.max.in.flight": "1",
      "svc.sink.unknown.field.behavior": "drop",
      "svc.sink.reporter.bootstrap.servers": kafka.bootstrapServers,
      "svc.sink.reporter.success.topic": "sink-ok",
      "svc.sink.reporter.error.topic": "sink-errors",
      "svc.sink.reporter.producer.linger.ms": "5",
    },
  });
  const updated = seedIncident(h.sim);
  const rejected = seedIncident(h.sim);
  // The instance's error body echoes credentials; none of it may reach a topic.
  h.sim.faults.add({
    route: "PATCH /api/now/table/incident/{sys_id}",
    skip: 1,
    times: 1,
    fault: {
      kind: "status",
      status: 403,
      message: "Operation Failed",
      detail:
        `Data Policy Exception for user with password=${PASSWORD}, Authorization: Basic c2luazpzZWNyZXQ=`,
    },
  });
  await h.put(
    sinkRecord({ offset: 10, key: updated, value: mapValue({ short_description: "ok", bogus: "x" }) }),
    sinkRecord({ offset: 11, value: mapValue({ short_description: "created" }) }),
    sinkRecord({ offset: 12, key: rejected, value: mapValue({ short_description: "nope" }) }),
  );

  const ok = await consumeAll(kafka.bootstrapServers, "sink-ok", { expected: 2 });
  const created = h.sim.table("incident").sysIds().find((id) =>
    h.sim.table("incident").get(id)?.short_description === "created"
  )!;
  const okValues = ok.map((r) => JSON.parse(r.value!));
  for (const v of okValues) {
    assertMatchUuid(v.request_id);
    delete v.request_id;
  }
  assertEquals(ok.map((r) => r.key), [updated, created]);
  assertEquals(okValues, [
    {
      operation: "update",
      table: "incident",
      sys_id: updated,
      status: 200,
      outcome: "updated",
      source: { topic: "incidents", partition: 0, offset: 10 },
    },
    {
      operation: "create",
      table: "incident",
      sys_id: created,
      status: 201,
      outcome: "created",
      source: { topic: "incidents", partition: 0, offset: 11 },
    },
  ]);

  const errors = await consumeAll(kafka.bootstrapServers, "sink-errors", { expected: 2 });
  const byOutcome = new Map(errors.map((r) => [JSON.parse(r.value!).outcome, r]));
  const dropped = JSON.parse(byOutcome.get("fields_dropped")!.value!);
  assertEquals(byOutcome.get("fields_dropped")!.key, updated);
  assertEquals([dropped.classification, dropped.status, dropped.source.offset], [
    "unknown_field_dropped",
    200,
    10,
  ]);
  assertStringIncludes(dropped.exception, '"bogus"');

  const failed = byOutcome.get("failed")!;
  assertEquals(failed.key, rejected);
  const value = JSON.parse(failed.value!);
  assertEquals(
    [
      value.operation,
      value.table,
      value.sys_id,
      value.status,
      value.classification,
      value.retries,
      value.source,
    ],
    ["update", "incident", rejected, 403, "data_policy", 0, { topic: "incidents", partition: 0, offset: 12 }],
  );
  assertStringIncludes(value.response_excerpt, "Data Policy Exception");
  assertStringIncludes(
    value.instance_message,
    "Operation Failed: Data Policy Exception for user with password=",
  );
  assertStringIncludes(value.exception, "InstanceHttpError: PATCH /api/now/table/incident/");
  for (const record of [...ok, ...errors]) {
    assert(!record.value!.includes(PASSWORD), "no password in a reporter record");
    assert(!record.value!.includes("c2luazpzZWNyZXQ="), "no authorization header value in a reporter record");
  }
  assertStringIncludes(value.response_excerpt, "[hidden]");
});

Deno.test("a reporter topic that does not exist stops the task at start, naming it", async () => {
  await using kafka = startKafkaMock();
  kafka.createTopic("sink-ok", 1);
  await assertRejects(
    () =>
      startHarness({
        config: {
          "svc.sink.reporter.bootstrap.servers": kafka.bootstrapServers,
          "svc.sink.reporter.success.topic": "sink-ok",
          "svc.sink.reporter.error.topic": "sink-errors-missing",
        },
      }),
    ReporterTopicMissingError,
    '"sink-errors-missing" (svc.sink.reporter.error.topic) does not exist',
  );
});

function assertMatchUuid(text: unknown): void {
  assert(typeof text === "string" && /^[0-9a-f-]{36}$/.test(text), `request_id ${text} is a UUID`);
}

Deno.test("a reporter that cannot send (librdkafka's mock, broker taken down) fails the put retriably; the redelivery reports without writing again", async () => {
  // src/kafka's producer leaves a copy of a failed send's promise unhandled (its in-flight tracking), which
  // would end the test run; the failure itself reaches the task, which is what this test is about.
  const swallowKafkaJsRejection = (event: PromiseRejectionEvent) => {
    if (String((event.reason as Error)?.name).startsWith("KafkaJS")) event.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", swallowKafkaJsRejection);
  using _restore = {
    [Symbol.dispose]: () => globalThis.removeEventListener("unhandledrejection", swallowKafkaJsRejection),
  };
  await using kafka = startKafkaMock();
  kafka.createTopic("sink-ok", 1);
  await using h = await startHarness({
    config: {
      "svc.sink.reporter.bootstrap.servers": kafka.bootstrapServers,
      "svc.sink.reporter.success.topic": "sink-ok",
      "svc.sink.reporter.producer.delivery.timeout.ms": "500",
      "svc.sink.reporter.producer.request.timeout.ms": "500",
    },
  });
  const sysId = seedIncident(h.sim);
  const record = sinkRecord({ offset: 0, key: sysId, value: mapValue({ short_description: "once" }) });
  kafka.brokerDown(1);
  await assertRejects(() => h.put(record), RetriableException, "sending reporter records failed");
  assertEquals(await h.task.preCommit([{ topic: "incidents", partition: 0, offset: 1 }]), [
    { topic: "incidents", partition: 0, offset: 0 },
  ]);
  kafka.brokerUp(1);
  // The runtime redelivers a put that failed retriably; with a 500 ms delivery timeout the first one after the
  // broker is back may still meet the client reconnecting.
  for (let attempt = 1;; attempt++) {
    try {
      await h.put(record);
      break;
    } catch (e) {
      if (!(e instanceof RetriableException) || attempt >= 20) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  assertEquals(h.proxy.writes().length, 1, "written once");
  const reports = await consumeAll(kafka.bootstrapServers, "sink-ok", { expected: 1 });
  assertEquals(reports.map((r) => r.key), [sysId]);
  assertEquals(await h.task.preCommit([{ topic: "incidents", partition: 0, offset: 1 }]), [
    { topic: "incidents", partition: 0, offset: 1 },
  ]);
});
