/** `/connectors` and `/connectors/<name>/...`: Kafka Connect's connector resource, paths, codes and bodies. */
import { z } from "zod";
import type { Herder } from "../runtime/herder.ts";
import { ConnectRestError } from "../runtime/herder/connect_rest_error.ts";
import type { TargetState } from "../runtime/herder/connector_state_store.ts";
import type { Router } from "./router.ts";
import { json, noContent, readJson, stringMap } from "./responses.ts";

/** Kafka Connect's CreateConnectorRequest: name, config and an optional, case-insensitive initial state. */
const CREATE_BODY = z.object({
  name: z.string({ error: "Connector name must be a non-empty string" }).trim().min(1, {
    error: "Connector name must be a non-empty string",
  }),
  config: z.record(z.string(), z.unknown()).optional(),
  initial_state: z.string().nullish().transform((v, ctx): TargetState | undefined => {
    if (v === null || v === undefined) return undefined;
    const state = v.toUpperCase();
    if (state === "RUNNING" || state === "PAUSED" || state === "STOPPED") return state;
    ctx.addIssue({
      code: "custom",
      message: `Invalid initial state ${v}: must be RUNNING, PAUSED or STOPPED`,
    });
    return z.NEVER;
  }),
});

/** Each issue names where it is: a field (`config: ...`), or the request body itself. */
function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "request body"}: ${i.message}`)
    .join("; ");
}

function taskId(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) {
    throw new ConnectRestError(404, `Task ${raw} not found`);
  }
  return n;
}

export function connectorRoutes(router: Router, herder: Herder): void {
  router.add("GET", "/connectors", (_req, _p, url) => {
    const expand = url.searchParams.getAll("expand");
    const names = herder.names();
    if (expand.length === 0) return json(names);
    const out: Record<string, Record<string, unknown>> = {};
    for (const name of names) {
      const entry: Record<string, unknown> = {};
      if (expand.includes("status")) entry.status = herder.status(name);
      if (expand.includes("info")) entry.info = herder.info(name);
      out[name] = entry;
    }
    return json(out);
  });

  router.add("POST", "/connectors", async (req) => {
    const parsed = CREATE_BODY.safeParse(await readJson(req));
    if (!parsed.success) throw new ConnectRestError(400, describeIssues(parsed.error));
    const { name, initial_state } = parsed.data;
    const config = stringMap(parsed.data.config ?? {}, "config");
    if (config.name !== undefined && config.name !== name) {
      throw new ConnectRestError(
        400,
        `Connector name configuration (${config.name}) doesn't match connector name in the URL (${name})`,
      );
    }
    await herder.create(name, config, initial_state ?? "RUNNING");
    return json(herder.info(name), 201, { location: `/connectors/${encodeURIComponent(name)}` });
  });

  router.add("GET", "/connectors/:name", (_r, p) => json(herder.info(p.name)));
  router.add("GET", "/connectors/:name/config", (_r, p) => json(herder.config(p.name)));

  router.add("PUT", "/connectors/:name/config", async (req, p) => {
    const config = stringMap(await readJson(req), "config");
    if (config.name !== undefined && config.name !== p.name) {
      throw new ConnectRestError(
        400,
        `Connector name configuration (${config.name}) doesn't match connector name in the URL (${p.name})`,
      );
    }
    const created = await herder.putConfig(p.name, config);
    return created
      ? json(herder.info(p.name), 201, { location: `/connectors/${encodeURIComponent(p.name)}` })
      : json(herder.info(p.name));
  });

  router.add("PATCH", "/connectors/:name/config", async (req, p) => {
    const patch = stringMap(await readJson(req), "config", true);
    if (patch.name !== undefined && patch.name !== p.name) {
      throw new ConnectRestError(
        400,
        `Connector name configuration (${patch.name}) doesn't match connector name in the URL (${p.name})`,
      );
    }
    await herder.patchConfig(p.name, patch);
    return json(herder.info(p.name));
  });

  router.add("GET", "/connectors/:name/status", (_r, p) => json(herder.status(p.name)));
  router.add("GET", "/connectors/:name/tasks", (_r, p) => json(herder.taskConfigs(p.name)));
  router.add("GET", "/connectors/:name/tasks-config", (_r, p) => {
    const out: Record<string, Record<string, string>> = {};
    for (const t of herder.taskConfigs(p.name)) out[`${p.name}-${t.id.task}`] = t.config;
    return json(out);
  });
  router.add(
    "GET",
    "/connectors/:name/tasks/:task/status",
    (_r, p) => json(herder.taskStatus(p.name, taskId(p.task))),
  );

  router.add("POST", "/connectors/:name/tasks/:task/restart", async (_r, p) => {
    await herder.restartTask(p.name, taskId(p.task));
    return noContent();
  });

  router.add("POST", "/connectors/:name/restart", async (_r, p, url) => {
    const includeTasks = url.searchParams.get("includeTasks") === "true";
    const onlyFailed = url.searchParams.get("onlyFailed") === "true";
    const { status, done } = herder.restart(p.name, includeTasks, onlyFailed);
    await done;
    // Connect: 204 for the legacy form, else 202 with the instances being restarted shown as RESTARTING.
    return !includeTasks && !onlyFailed ? noContent() : json(status, 202);
  });

  router.add("PUT", "/connectors/:name/pause", async (_r, p) => {
    await herder.pause(p.name);
    return noContent(202);
  });
  router.add("PUT", "/connectors/:name/resume", async (_r, p) => {
    await herder.resume(p.name);
    return noContent(202);
  });
  router.add("PUT", "/connectors/:name/stop", async (_r, p) => {
    await herder.stop(p.name);
    return noContent(204);
  });
  router.add("DELETE", "/connectors/:name", async (_r, p) => {
    await herder.delete(p.name);
    return noContent(204);
  });
}
