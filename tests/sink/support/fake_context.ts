/** A SinkTaskContext for driving the task directly: it records what the task reports, logs and counts. */
import type { SinkRecord } from "../../../src/connect/record.ts";
import type { SinkTaskContext } from "../../../src/connect/task_api.ts";
import type { Logger } from "../../../src/observability/log.ts";

export interface ReportedRecordError {
  record: SinkRecord;
  error: Error;
}

export interface LoggedLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

export interface FakeSinkContext extends SinkTaskContext {
  readonly recordErrors: ReportedRecordError[];
  readonly lines: LoggedLine[];
  readonly counters: Map<string, number>;
  /** Aborts `signal`, as the runtime does when stopping the task. */
  abort(): void;
}

/**
 * `tolerance` mirrors `errors.tolerance`: with `all` a reported record error resolves (the runtime would send
 * it to the dead letter queue); with `none` it rejects, which fails the task.
 */
export function fakeSinkContext(tolerance: "all" | "none" = "all"): FakeSinkContext {
  const controller = new AbortController();
  const recordErrors: ReportedRecordError[] = [];
  const lines: LoggedLine[] = [];
  const counters = new Map<string, number>();
  const log = (level: string) => (fields: unknown, message?: string) => {
    if (typeof fields === "string") lines.push({ level, fields: {}, message: fields });
    else lines.push({ level, fields: (fields ?? {}) as Record<string, unknown>, message: message ?? "" });
  };
  const logger = {
    trace: log("trace"),
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    fatal: log("fatal"),
    isLevelEnabled: (level: string) => level !== "trace" && level !== "debug",
    child: () => logger,
  } as unknown as Logger;
  return {
    connectorName: "sink-test",
    taskId: 0,
    logger,
    metrics: {
      increment(name, labels = {}, by = 1) {
        const key = `${name}${JSON.stringify(labels)}`;
        counters.set(key, (counters.get(key) ?? 0) + by);
      },
      set() {},
    },
    signal: controller.signal,
    // One signal here: these tests' abort() is the runtime failing or killing the task (both abandon writes).
    writeSignal: controller.signal,
    recordErrors,
    lines,
    counters,
    abort: () => controller.abort(new Error("task stopping")),
    reportRecordError(record, error) {
      recordErrors.push({ record, error });
      if (tolerance === "all") return Promise.resolve();
      return Promise.reject(
        new Error(`Tolerance exceeded in error handler: ${error.message}`, { cause: error }),
      );
    },
  };
}
