/**
 * Setting a logger's level on this worker (Connect's `PUT /admin/loggers/<name>`, or a cluster-wide change read
 * from the config topic): in the main thread's loggers, then in every running task thread. Tasks started
 * later begin with the new settings (connector_lifecycle.ts passes `logSettings()` in their start message).
 */
import { LOG_LEVELS, type LogLevel, logSettings, setLoggerLevel } from "../../observability/log.ts";
import type { TaskRunner } from "./task_runner.ts";

/** Kafka Connect's (log4j) level name: OFF is pino's `silent`. */
export function connectLevel(level: LogLevel): string {
  return level === "silent" ? "OFF" : level.toUpperCase();
}

/** A level as Connect names it (TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF; any case); null if it is none. */
export function parseConnectLevel(raw: string): LogLevel | null {
  const lower = raw.toLowerCase();
  if (lower === "off") return "silent";
  return LOG_LEVELS.includes(lower as LogLevel) && lower !== "silent" ? lower as LogLevel : null;
}

/** Sets the level here and in every task; returns the names of the loggers it covered (Connect's answer). */
export function setWorkerLoggerLevel(name: string, level: LogLevel, tasks: readonly TaskRunner[]): string[] {
  const changed = setLoggerLevel(name, level);
  const settings = logSettings();
  for (const task of tasks) task.setLogSettings(settings);
  return changed;
}
