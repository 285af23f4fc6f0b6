/**
 * `/admin/loggers` (KIP-495, KIP-976): the daemon's named loggers (observability/log.ts) and their levels, changed
 * at runtime, in Kafka Connect's shapes:
 * - `GET /admin/loggers` → `{"<name>":{"level":"INFO","last_modified":null|ms},...}` (every known logger not OFF);
 * - `GET /admin/loggers/<name>` → `{"level":...,"last_modified":...}`, 404 for a logger this worker does not know;
 * - `PUT /admin/loggers/<name>` `{"level":"DEBUG"}` sets the logger and every logger under it (`root`: all);
 *   `?scope=worker` (the default; an unknown scope is taken as worker, as Connect does) answers 200 with the
 *   names of the loggers it covered (already at that level or not, as Connect); `?scope=cluster` answers 204: standalone it is this worker, in a worker group the
 *   change goes through the config topic (`logger-cluster-<name>`, as Connect's) to every member.
 * Levels: TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF (case-insensitive). Each change reaches every running task's
 * Web Worker at once, and tasks started later begin with it.
 */
import { lastModified, levelOf, logger, loggerNames, type LogLevel } from "../observability/log.ts";
import { ConnectRestError } from "../runtime/herder/connect_rest_error.ts";
import type { TaskRunner } from "../runtime/herder/task_runner.ts";
import { connectLevel, parseConnectLevel, setWorkerLoggerLevel } from "../runtime/herder/logger_levels.ts";
import type { Router } from "./router.ts";
import { json, noContent, readJson } from "./responses.ts";

const log = logger("rest");

function loggerLevel(name: string) {
  return { level: connectLevel(levelOf(name)), last_modified: lastModified(name) };
}

/** How `?scope=cluster` reaches every member of a worker group (through the config topic); absent standalone. */
export type ClusterLoggerLevel = (name: string, level: LogLevel) => Promise<void>;

/** `tasks`: the task runners of this worker, which receive each change; `cluster`: see ClusterLoggerLevel. */
export function loggerRoutes(
  router: Router,
  tasks: () => TaskRunner[],
  cluster: () => ClusterLoggerLevel | null,
): void {
  router.add("GET", "/admin/loggers", () => {
    const out: Record<string, ReturnType<typeof loggerLevel>> = {};
    for (const name of loggerNames()) if (levelOf(name) !== "silent") out[name] = loggerLevel(name);
    return json(out);
  });

  router.add("GET", "/admin/loggers/:logger", (_r, p) => {
    if (!loggerNames().includes(p.logger) && p.logger.toLowerCase() !== "root") {
      throw new ConnectRestError(404, `Logger ${p.logger} not found.`);
    }
    return json(loggerLevel(p.logger));
  });

  router.add("PUT", "/admin/loggers/:logger", async (req, p, url) => {
    const body = await readJson(req);
    const raw = typeof body === "object" && body !== null
      ? (body as Record<string, unknown>).level
      : undefined;
    if (raw === undefined || raw === null) {
      throw new ConnectRestError(400, "Desired 'level' parameter was not specified in request.");
    }
    const level = typeof raw === "string" ? parseConnectLevel(raw) : null;
    if (!level) {
      // Connect answers an unknown level with 404.
      throw new ConnectRestError(
        404,
        `invalid log level '${
          String(raw)
        }' for 'level': must be one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF.`,
      );
    }
    const scope = (url.searchParams.get("scope") ?? "worker").toLowerCase();
    log.info(
      { logger: p.logger, level: connectLevel(level), scope },
      `setting the level of logger ${p.logger}`,
    );
    if (scope === "cluster") {
      // Group mode: written to the config topic; every member, this one included, applies it when read back.
      const everywhere = cluster();
      if (everywhere) await everywhere(p.logger, level);
      else setWorkerLoggerLevel(p.logger, level, tasks());
      return noContent();
    }
    return json(setWorkerLoggerLevel(p.logger, level, tasks()));
  });
}
