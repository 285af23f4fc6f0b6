/** Generated sys_user, sys_user_group and cmdb_ci rows, referenced by generated task rows. */
import { formatGlideDateTime } from "../glide_time.ts";
import type { Random } from "../random.ts";
import type { TableStore } from "../store/table_store.ts";
import { CI_KINDS, FIRST_NAMES, GROUP_NAMES, LAST_NAMES, TIME_ZONES } from "./pools.ts";

/** What a login user's sys_user row is made of (options.ts SimUserSpec, defaults filled in). */
export interface LoginUser {
  userName: string;
  timeZone: string;
  dateFormat: string;
}

export interface SeedContext {
  random: Random;
  /** Instance time the generated history ends at, epoch seconds. */
  endSeconds: number;
}

function stampSystem(
  values: Record<string, string>,
  ctx: SeedContext,
  secondsAgo: number,
): Record<string, string> {
  const at = formatGlideDateTime(ctx.endSeconds - secondsAgo);
  return {
    sys_id: ctx.random.hex32(),
    sys_created_on: at,
    sys_updated_on: at,
    sys_created_by: "admin",
    sys_updated_by: "admin",
    sys_mod_count: "0",
    ...values,
  };
}

function insertSeeded(store: TableStore, values: Record<string, string>): void {
  store.insert(values, {
    nowSeconds: 0,
    user: "admin",
    suppressAutoSysFields: true,
    newSysId: () => {
      throw new Error("seeded rows carry their sys_id");
    },
  });
}

/** sys_user rows for the configured login users (so tokens and probes can read their time zone). */
export function seedLoginUsers(store: TableStore, users: readonly LoginUser[], ctx: SeedContext): void {
  for (const u of users) {
    if (findUser(store, u.userName) >= 0) continue;
    insertSeeded(
      store,
      stampSystem(
        {
          user_name: u.userName,
          name: u.userName === "admin" ? "System Administrator" : u.userName,
          first_name: u.userName,
          email: `${u.userName}@example.com`,
          time_zone: u.timeZone,
          date_format: u.dateFormat === "yyyy-MM-dd" ? "" : u.dateFormat,
          active: "true",
        },
        ctx,
        86400 * 400,
      ),
    );
  }
}

export function findUser(store: TableStore, userName: string): number {
  const reader = store.reader("user_name")!;
  for (const row of store.liveRows()) if (reader.get(row) === userName) return row;
  return -1;
}

export function seedUsers(store: TableStore, n: number, ctx: SeedContext): void {
  const start = store.liveCount;
  for (let i = 0; i < n; i++) {
    const first = ctx.random.pick(FIRST_NAMES), last = ctx.random.pick(LAST_NAMES);
    const k = start + i;
    const userName = `${first.toLowerCase()}.${last.toLowerCase().replace(/[^a-z]/g, "")}${k}`;
    insertSeeded(
      store,
      stampSystem(
        {
          user_name: userName,
          name: `${first} ${last} ${k}`,
          first_name: first,
          last_name: last,
          email: `${userName}@example.com`,
          title: ctx.random.pick(["Engineer", "Analyst", "Manager", "Technician", ""]),
          time_zone: ctx.random.pick(TIME_ZONES),
          active: ctx.random.chance(0.95) ? "true" : "false",
        },
        ctx,
        86400 * 300 + ctx.random.int(86400 * 30),
      ),
    );
  }
}

export function seedGroups(store: TableStore, n: number, ctx: SeedContext, userIds: string[]): void {
  const start = store.liveCount;
  for (let i = 0; i < n; i++) {
    const k = start + i;
    const base = GROUP_NAMES[k % GROUP_NAMES.length];
    const name = k < GROUP_NAMES.length ? base : `${base} ${Math.floor(k / GROUP_NAMES.length) + 1}`;
    insertSeeded(
      store,
      stampSystem(
        {
          name,
          description: `${name} team`,
          email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, ".")}@example.com`,
          manager: userIds.length ? ctx.random.pick(userIds) : "",
          active: "true",
        },
        ctx,
        86400 * 300 + ctx.random.int(86400 * 30),
      ),
    );
  }
}

export function seedConfigurationItems(
  store: TableStore,
  n: number,
  ctx: SeedContext,
  groupIds: string[],
): void {
  const start = store.liveCount;
  for (let i = 0; i < n; i++) {
    const k = start + i;
    const kind = CI_KINDS[k % CI_KINDS.length];
    insertSeeded(
      store,
      stampSystem(
        {
          name: `${kind}-${String(k).padStart(4, "0")}`,
          asset_tag: `P${String(100000 + k)}`,
          serial_number: `SN-${ctx.random.hex32().slice(0, 12)}`,
          ip_address: `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`,
          manufacturer: ctx.random.pick(["Dell", "HP", "Cisco", "Lenovo", "NetApp", ""]),
          operational_status: ctx.random.pick(["1", "1", "1", "2", "3"]),
          install_status: "1",
          support_group: groupIds.length ? ctx.random.pick(groupIds) : "",
        },
        ctx,
        86400 * 200 + ctx.random.int(86400 * 30),
      ),
    );
  }
}
