/**
 * A sink task wired to a fresh simulator (through the recording proxy) and a fake context, configured the way
 * the config layer would: raw properties analysed with their defaults applied.
 */
import { sinkConnectorConfig } from "../../support/sink_connector.ts";
import { errorLines } from "../../../src/config/analyze.ts";
import { analyzeConnector } from "../../../src/config/connector_config.ts";
import type { RawConfig, TypedProps } from "../../../src/common/props.ts";
import type { SinkRecord } from "../../../src/connect/record.ts";
import type { SinkTask } from "../../../src/connect/task_api.ts";
import { type Simulator, type SimulatorOptions, startSimulator } from "../../../src/sim/mod.ts";
import { createSinkTask } from "../../../src/sink/task.ts";
import { type FakeSinkContext, fakeSinkContext } from "./fake_context.ts";
import { type RecordingProxy, startRecordingProxy } from "./recording_proxy.ts";

export const USER = "sink.integration";
export const PASSWORD = "Sink-Test-Passw0rd-42";

/** Sink properties with the connection to `url` (user USER) and small retry waits; `overrides` win. */
export function sinkConfig(url: string, overrides: RawConfig = {}): RawConfig {
  return sinkConnectorConfig(url, PASSWORD, {
    "name": "sink-test",
    "connector.class": "io.tablesync.TableSinkConnector",
    "topics": "incidents",
    "svc.auth.username": USER,
    "svc.retry.max.attempts": "3",
    "svc.retry.initial.backoff.ms": "1",
    "svc.retry.max.backoff.ms": "5",
    ...overrides,
  });
}

/** The typed properties of a config; throws listing the config errors when it is invalid. */
export function typedProps(config: RawConfig): TypedProps {
  const analysis = analyzeConnector(config, { worker: {} });
  if (analysis.errors.size > 0) throw new Error(`invalid test config:\n${errorLines(analysis).join("\n")}`);
  return analysis.values;
}

export interface SinkHarness extends AsyncDisposable {
  sim: Simulator;
  proxy: RecordingProxy;
  task: SinkTask;
  context: FakeSinkContext;
  config: RawConfig;
  put(...records: SinkRecord[]): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  config?: RawConfig;
  sim?: SimulatorOptions;
  tolerance?: "all" | "none";
  /** Runs on the simulator before the task starts (e.g. a dictionary row the start-time checks read). */
  beforeStart?: (sim: Simulator) => void;
}

export async function startHarness(options: HarnessOptions = {}): Promise<SinkHarness> {
  const sim = await startSimulator({ users: [`${USER}:${PASSWORD}`], ...options.sim });
  options.beforeStart?.(sim);
  const proxy = startRecordingProxy(sim.url);
  const config = sinkConfig(proxy.url, options.config);
  const task = createSinkTask();
  const context = fakeSinkContext(options.tolerance ?? "all");
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await task.stop().catch(() => {});
    await proxy.close();
    await sim.stop();
  };
  try {
    await task.start(config, typedProps(config), context);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    sim,
    proxy,
    task,
    context,
    config,
    put: (...records) => task.put(records),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Inserts an incident row directly (no HTTP) and returns its sys_id. */
export function seedIncident(sim: Simulator, values: Record<string, string> = {}): string {
  const row = sim.table("incident").insert({ short_description: "seeded", ...values });
  return row.sys_id;
}
