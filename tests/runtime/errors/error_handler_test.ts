/**
 * Kafka Connect's error handling semantics: retriable failures retried within errors.retry.timeout, converter
 * and transform failures tolerated under errors.tolerance=all (logged, dead-lettered with context headers),
 * anything else failing the task.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../support/assert.ts";
import {
  ErrorHandler,
  type ErrorHandlingConfig,
  ToleranceExceededError,
} from "../../../src/runtime/errors/error_handler.ts";
import { DeadLetterQueue } from "../../../src/runtime/errors/dead_letter_queue.ts";
import { RetriableException } from "../../../src/connect/task_api.ts";
import { DataException } from "../../../src/connect/errors.ts";
import { MetricsRegistry } from "../../../src/observability/metrics.ts";
import { logger } from "../../../src/observability/log.ts";
import type { ProducedRecord, Producer } from "../../../src/kafka/mod.ts";

function handler(config: Partial<ErrorHandlingConfig>, dlqSent?: ProducedRecord[]) {
  const producer: Producer = {
    send: (records) => {
      dlqSent?.push(...records);
      return Promise.resolve(records.map((r) => ({ topic: r.topic, partition: 0, offset: 0 })));
    },
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  const dlq = dlqSent
    ? new DeadLetterQueue({
      topic: "dlq",
      contextHeaders: true,
      connectorName: "c",
      taskId: 3,
      producer: () => Promise.resolve(producer),
    })
    : null;
  const metrics = new MetricsRegistry();
  const h = new ErrorHandler({
    retryTimeoutMs: 0,
    retryDelayMaxMs: 60000,
    toleranceAll: false,
    logEnable: false,
    logIncludeMessages: false,
    ...config,
  }, { logger: logger("test"), dlq, metrics, signal: new AbortController().signal, taskLabel: "c-3" });
  return { h, metrics };
}

const failed = () => ({
  topic: "in",
  partition: 2,
  offset: 41,
  key: new TextEncoder().encode("k"),
  value: new TextEncoder().encode("v"),
});

Deno.test("a retriable failure is retried until it succeeds within errors.retry.timeout", async () => {
  const { h } = handler({ retryTimeoutMs: 5000, retryDelayMaxMs: 50 });
  let calls = 0;
  const result = await h.execute("VALUE_CONVERTER", () => {
    if (++calls < 3) throw new RetriableException("registry away");
    return "ok";
  }, { executingClass: "X" });
  assertEquals(result, { ok: true, value: "ok" });
  assertEquals(calls, 3);
});

Deno.test("errors.tolerance=none: a converter failure fails the task with Connect's message", async () => {
  const { h } = handler({});
  const error = await assertRejects(
    () =>
      h.execute("VALUE_CONVERTER", () => {
        throw new DataException("bad bytes");
      }, { executingClass: "org.apache.kafka.connect.json.JsonConverter" }),
    ToleranceExceededError,
  );
  assertStringIncludes(error.message, "Tolerance exceeded in error handler");
  assertStringIncludes(error.message, "bad bytes");
});

Deno.test("errors.tolerance=all: a converter failure is skipped and dead-lettered with the context headers", async () => {
  const sent: ProducedRecord[] = [];
  const { h, metrics } = handler({ toleranceAll: true }, sent);
  const result = await h.execute("VALUE_CONVERTER", () => {
    throw new DataException("bad bytes");
  }, { executingClass: "org.apache.kafka.connect.json.JsonConverter", failedRecord: failed });
  assertEquals(result.ok, false);
  assertEquals(sent.length, 1);
  const headers = sent[0].headers!;
  assertEquals(sent[0].topic, "dlq");
  assertEquals(new TextDecoder().decode(sent[0].value!), "v");
  assertEquals(headers["__connect.errors.topic"], "in");
  assertEquals(headers["__connect.errors.partition"], "2");
  assertEquals(headers["__connect.errors.offset"], "41");
  assertEquals(headers["__connect.errors.connector.name"], "c");
  assertEquals(headers["__connect.errors.task.id"], "3");
  assertEquals(headers["__connect.errors.stage"], "VALUE_CONVERTER");
  assertEquals(headers["__connect.errors.class.name"], "org.apache.kafka.connect.json.JsonConverter");
  assertEquals(
    headers["__connect.errors.exception.class.name"],
    "org.apache.kafka.connect.errors.DataException",
  );
  assertEquals(headers["__connect.errors.exception.message"], "bad bytes");
  assertEquals(metrics.value("tablesync_dlq_records_total", { stage: "VALUE_CONVERTER" }), 1);
});

Deno.test("errors.tolerance=all still fails the task for a non-retriable failure of a task stage", async () => {
  const { h } = handler({ toleranceAll: true });
  const error = await assertRejects(
    () =>
      h.execute("TASK_PUT", () => {
        throw new Error("instance said no");
      }, { executingClass: "T" }),
    ToleranceExceededError,
  );
  assertStringIncludes(error.message, "Unhandled exception in error handler");
});

Deno.test("record errors a connector reports are tolerated in any stage under errors.tolerance=all", async () => {
  const sent: ProducedRecord[] = [];
  const { h } = handler({ toleranceAll: true }, sent);
  const result = await h.handleFailure("TASK_PUT", new Error("HTTP 400 from the instance"), {
    executingClass: "io.tablesync.TableSinkTask",
    failedRecord: failed,
  }, true);
  assertEquals(result.ok, false);
  assertEquals(sent.length, 1);
  assert(
    !String(sent[0].headers!["__connect.errors.exception.stacktrace"]).includes("undefined"),
    "stack header",
  );
});
