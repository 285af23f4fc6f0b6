/**
 * Generated task rows (incident, problem): realistic field mixes, deterministic for a seed, fast enough for
 * a million rows (columns are written directly, choice values pre-encoded).
 *
 * The history runs forward in time and ends a minute before the instance clock. Besides the natural
 * collisions of a busy table it contains same-second buckets of `bucketSize` rows (capped at a fifth of the
 * rows), so keyset paging meets a second holding more rows than a page.
 */
import { TimeColumn } from "../store/columns.ts";
import type { Column } from "../store/columns.ts";
import type { TableStore } from "../store/table_store.ts";
import type { SeedContext } from "./reference_data.ts";
import { CLOSE_NOTES, SUBCATEGORIES, SUBJECTS, SYMPTOMS } from "./pools.ts";

export interface TaskSeedRefs {
  userIds: string[];
  userNames: string[];
  groupIds: string[];
  ciIds: string[];
  problemIds: string[];
}

/** Timestamps (epoch seconds, ascending) for n rows ending at `end`, with the big same-second buckets. */
function seededTimeline(
  n: number,
  end: number,
  bucketSize: number,
  random: SeedContext["random"],
): Float64Array {
  const times = new Float64Array(n);
  const size = Math.min(bucketSize, Math.floor(n / 5));
  const buckets = size >= 2 ? [Math.floor(n * 0.3), Math.floor(n * 0.7)] : [];
  let t = end;
  for (let i = n - 1; i >= 0; i--) {
    times[i] = t;
    const inBucket = buckets.some((b) => i > b && i < b + size);
    if (!inBucket) t -= random.int(15);
  }
  return times;
}

const STATES = ["1", "1", "2", "2", "2", "3", "6", "6", "7", "7", "7", "8"];
const CATEGORIES = ["inquiry", "software", "hardware", "network", "database"];
const CONTACT_TYPES = ["email", "phone", "self-service", "walk-in", ""];

export function seedTaskRows(
  store: TableStore,
  n: number,
  ctx: SeedContext,
  refs: TaskSeedRefs,
  bucketSize: number,
): void {
  const { random } = ctx;
  store.reserve(n);
  const timeline = seededTimeline(n, ctx.endSeconds - 60, bucketSize, random);
  const isIncident = store.field("caller_id") !== undefined;
  const isProblem = store.field("problem_state") !== undefined;
  const pickOr = (items: string[]) => (items.length ? random.pick(items) : "");
  const descriptions = SUBJECTS.flatMap((s) => SYMPTOMS.map((y) => `${s} ${y}`));
  const cols = new Map<string, Column>();
  const col = (name: string) => cols.get(name);
  const time = (name: string) => col(name) as TimeColumn | undefined;
  const setIf = (name: string, row: number, value: string) => col(name)?.set(row, value);
  const setTime = (name: string, row: number, secs: number) => time(name)?.setSeconds(row, secs);

  for (let i = 0; i < n; i++) {
    const updated = timeline[i];
    store.appendRaw((row, columns) => {
      if (cols.size === 0) { for (const [k, v] of columns) cols.set(k, v); }
      const created = random.chance(0.3) ? updated : updated - random.int(86400 * 10);
      const state = random.pick(STATES);
      const impact = 1 + random.int(3), urgency = 1 + random.int(3);
      const closed = state === "6" || state === "7" || state === "8";
      const subject = random.pick(descriptions);
      const creator = pickOr(refs.userNames) || "admin";
      setIf("sys_id", row, random.hex32());
      setTime("sys_created_on", row, created);
      setTime("sys_updated_on", row, updated);
      setIf("sys_created_by", row, creator);
      setIf("sys_updated_by", row, created === updated ? creator : pickOr(refs.userNames) || "admin");
      setIf("sys_mod_count", row, created === updated ? "0" : String(1 + random.int(9)));
      setIf("sys_class_name", row, store.name);
      setIf("sys_domain", row, "global");
      setIf("sys_domain_path", row, "/");
      setIf("number", row, store.nextNumber());
      setIf("task_effective_number", row, col("number")!.get(row));
      setIf("short_description", row, subject);
      setIf(
        "description",
        row,
        random.chance(0.6) ? `${subject}. Reported via the portal; see attached details.` : "",
      );
      setIf("active", row, closed ? "false" : "true");
      setIf("state", row, state);
      setIf("impact", row, String(impact));
      setIf("urgency", row, String(urgency));
      setIf("priority", row, String(impact + urgency - 1));
      setIf("escalation", row, random.chance(0.9) ? "0" : String(1 + random.int(3)));
      setIf("approval", row, "not requested");
      setIf("upon_approval", row, "proceed");
      setIf("upon_reject", row, "cancel");
      setIf("contact_type", row, random.pick(CONTACT_TYPES));
      setIf("assigned_to", row, random.chance(0.8) ? pickOr(refs.userIds) : "");
      setIf("assignment_group", row, pickOr(refs.groupIds));
      setIf("opened_by", row, pickOr(refs.userIds));
      setIf("cmdb_ci", row, random.chance(0.7) ? pickOr(refs.ciIds) : "");
      setIf("business_service", row, random.chance(0.3) ? pickOr(refs.ciIds) : "");
      setTime("opened_at", row, created);
      setTime("sla_due", row, random.chance(0.5) ? created + 86400 * (1 + random.int(5)) : NaN);
      setTime("due_date", row, random.chance(0.2) ? created + 86400 * 7 : NaN);
      setIf("made_sla", row, random.chance(0.85) ? "true" : "false");
      setIf("knowledge", row, "false");
      setIf("reassignment_count", row, String(random.int(4)));
      setIf("order", row, "");
      setIf("correlation_id", row, random.chance(0.1) ? `EXT-${random.int(1e6)}` : "");
      if (closed) {
        const end = Math.min(updated, created + random.int(86400 * 5));
        setTime("closed_at", row, state === "6" ? NaN : end);
        setIf("closed_by", row, state === "6" ? "" : pickOr(refs.userIds));
        setIf("close_notes", row, random.pick(CLOSE_NOTES));
        setTime("business_duration", row, end - created);
        setTime("calendar_duration", row, end - created);
      }
      if (isIncident) {
        setIf("caller_id", row, pickOr(refs.userIds));
        setIf("category", row, random.pick(CATEGORIES));
        setIf("subcategory", row, random.pick(SUBCATEGORIES));
        setIf("incident_state", row, state);
        setIf("severity", row, String(1 + random.int(3)));
        setIf("notify", row, "1");
        setIf("reopen_count", row, random.chance(0.95) ? "0" : "1");
        setIf("child_incidents", row, "0");
        setIf("hold_reason", row, state === "3" ? random.pick(["1", "3", "4"]) : "");
        setIf("problem_id", row, random.chance(0.05) ? pickOr(refs.problemIds) : "");
        if (closed) {
          const resolved = Math.min(updated, created + random.int(86400 * 4));
          setTime("resolved_at", row, resolved);
          setIf("resolved_by", row, pickOr(refs.userIds));
          setIf("close_code", row, "Solved (Permanently)");
          setIf("calendar_stc", row, String(resolved - created));
          setIf("business_stc", row, String(Math.floor((resolved - created) / 3)));
        }
      }
      if (isProblem) {
        setIf("problem_state", row, closed ? "107" : random.pick(["101", "102", "103", "104"]));
        setIf("known_error", row, random.chance(0.2) ? "true" : "false");
        setIf("related_incidents", row, String(random.int(12)));
        setIf("workaround", row, random.chance(0.3) ? "Restart the affected service." : "");
      }
    });
  }
}
