/**
 * Login users (basic auth) and their sys_user rows. The time zone and date format shown in display values
 * are read from sys_user at request time, so a test can change a user's zone through the table itself.
 */
import type { SimUserSpec } from "../options.ts";
import type { TableStore } from "../store/table_store.ts";
import type { Viewer } from "../http/serialize.ts";
import { findUser } from "../seed/reference_data.ts";

export interface Principal {
  userName: string;
  /** sys_id of the sys_user row ("" when the row was deleted). */
  sysId: string;
  admin: boolean;
  roles: readonly string[];
  via: "basic" | "bearer";
  clientId?: string;
}

export class UserDirectory {
  #users = new Map<string, Required<SimUserSpec>>();
  #table: TableStore;

  constructor(table: TableStore) {
    this.#table = table;
  }

  add(user: Required<SimUserSpec>): void {
    this.#users.set(user.userName, user);
  }

  remove(userName: string): boolean {
    return this.#users.delete(userName);
  }

  has(userName: string): boolean {
    return this.#users.has(userName);
  }

  names(): string[] {
    return [...this.#users.keys()];
  }

  /** Checks a user name and password; the principal on success. */
  verify(userName: string, password: string): Principal | undefined {
    const user = this.#users.get(userName);
    if (!user || !constantTimeEqual(user.password, password)) return undefined;
    return this.principal(userName, "basic");
  }

  principal(userName: string, via: "basic" | "bearer", clientId?: string): Principal | undefined {
    const user = this.#users.get(userName);
    if (!user) return undefined;
    const row = findUser(this.#table, userName);
    const sysId = row >= 0 ? this.#table.reader("sys_id")!.get(row) : "";
    return { userName, sysId, admin: user.admin, roles: user.roles, via, clientId };
  }

  /** Time zone and date format from the user's sys_user row (UTC and yyyy-MM-dd when unset). */
  viewer(principal: Principal | undefined): Viewer {
    const row = principal ? this.#table.rowBySysId(principal.sysId) : -1;
    if (row < 0) return { timeZone: "UTC", dateFormat: "yyyy-MM-dd" };
    const tz = this.#table.reader("time_zone")!.get(row);
    const fmt = this.#table.reader("date_format")!.get(row);
    return { timeZone: validZone(tz) ? tz : "UTC", dateFormat: fmt || "yyyy-MM-dd" };
  }
}

/** Zone names already checked: making an Intl.DateTimeFormat per request was a fifth of a write's cost. */
const checkedZones = new Map<string, boolean>();

function validZone(tz: string): boolean {
  if (!tz) return false;
  let valid = checkedZones.get(tz);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: tz });
      valid = true;
    } catch {
      valid = false;
    }
    checkedZones.set(tz, valid);
  }
  return valid;
}

export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  }
  return diff === 0;
}
