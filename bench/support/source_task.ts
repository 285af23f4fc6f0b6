/**
 * An in-process source task for benchmarks: a task context without offsets or metrics, and a config reading the
 * simulator's incident table (alias `inc`) as the user every benchmark simulator is started with.
 */
import type { Logger } from "pino";
import type { RawConfig } from "../../src/common/props.ts";
import type { SourceTaskContext } from "../../src/connect/task_api.ts";

/** The simulator user of the benchmarks (`users: [BENCH_USER]`). */
export const BENCH_USER = "bench:bench-pass";

export function benchSourceContext(logger: Logger, signal: AbortSignal): SourceTaskContext {
  return {
    connectorName: "bench",
    taskId: 0,
    logger,
    metrics: { increment: () => {}, set: () => {} },
    signal,
    offset: () => null,
    reportBadRow: () => Promise.resolve(),
  };
}

/** A source config of `incident` on the simulator at `url`; `extra` overrides or adds keys. */
export function benchSourceConfig(url: string, extra: RawConfig): RawConfig {
  return {
    name: "bench",
    "connector.class": "io.tablesync.TableSourceConnector",
    "svc.url": url,
    "svc.auth.username": "bench",
    "svc.auth.password": "bench-pass",
    "svc.tables": "inc",
    "svc.table.inc.name": "incident",
    "svc.table.inc.topic": "bench",
    "svc.source.safety.lag.seconds": "0",
    ...extra,
  };
}
