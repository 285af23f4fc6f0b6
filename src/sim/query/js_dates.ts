/**
 * The `javascript:gs.*` date helpers that appear in encoded queries. They compute boundaries in the
 * requesting user's time zone and yield a UTC instant (epoch seconds), as the instance does.
 */
import { zonedParts, zonedToEpoch } from "../glide_time.ts";

export interface ScriptContext {
  nowSeconds: number;
  timeZone: string;
  userSysId: string;
}

const CALL = /^javascript:\s*gs\.(\w+)\(([^)]*)\)\s*;?\s*$/;

function args(text: string): string[] {
  return text.split(",").map((a) => a.trim().replace(/^['"]|['"]$/g, "")).filter((a) => a !== "");
}

function startOfDayAgo(days: number, ctx: ScriptContext): number {
  const p = zonedParts(ctx.nowSeconds - days * 86400, ctx.timeZone);
  return zonedToEpoch(+p.y, +p.M, +p.d, 0, 0, 0, ctx.timeZone);
}

/** Epoch seconds for a supported date helper; undefined when `text` is not one. */
export function evaluateDateScript(text: string, ctx: ScriptContext): number | undefined {
  const m = CALL.exec(text);
  if (!m) return undefined;
  const a = args(m[2]);
  const n = a.length ? Number(a[0]) : 0;
  switch (m[1]) {
    case "dateGenerate": {
      const [y, mo, d] = (a[0] ?? "").split("-").map(Number);
      const time = a[1] === "start" || a[1] === undefined ? "00:00:00" : a[1] === "end" ? "23:59:59" : a[1];
      const [h, mi, s] = time.split(":").map(Number);
      const t = zonedToEpoch(y, mo, d, h, mi, s, ctx.timeZone);
      return Number.isNaN(t) ? undefined : t;
    }
    case "daysAgoStart":
      return startOfDayAgo(n, ctx);
    case "daysAgoEnd":
      return startOfDayAgo(n, ctx) + 86399;
    case "beginningOfToday":
      return startOfDayAgo(0, ctx);
    case "endOfToday":
      return startOfDayAgo(0, ctx) + 86399;
    case "beginningOfYesterday":
      return startOfDayAgo(1, ctx);
    case "endOfYesterday":
      return startOfDayAgo(1, ctx) + 86399;
    case "daysAgo":
      return ctx.nowSeconds - n * 86400;
    case "hoursAgo":
      return ctx.nowSeconds - n * 3600;
    case "minutesAgo":
      return ctx.nowSeconds - n * 60;
    case "nowDateTime":
      return ctx.nowSeconds;
    default:
      return undefined;
  }
}

/** `javascript:gs.getUserID()` and friends that yield strings. */
export function evaluateStringScript(text: string, ctx: ScriptContext): string | undefined {
  const m = CALL.exec(text);
  if (!m) return undefined;
  if (m[1] === "getUserID") return ctx.userSysId;
  return undefined;
}
