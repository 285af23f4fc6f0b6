/** The simulator's public types: what `startSimulator` returns and what its direct table access takes. */
import type { InstanceClock } from "./clock.ts";
import type { Counters } from "./counters.ts";
import type { FaultRegistry } from "./faults.ts";
import type { WriteRuleRegistry } from "./write_rules.ts";
import type { Journal } from "./journal.ts";
import type { SimOAuthClientSpec, SimUserSpec } from "./options.ts";
import type { WriterSettings } from "./writer.ts";
import type { DriftMaker } from "./drift.ts";

/** A row as stored: every field's raw (database) value as a string; "" for empty. */
export type SimRow = Record<string, string>;

/** Options of direct writes (they bypass HTTP, auth and faults). */
export interface DirectWriteOptions {
  /** user_name written to sys_created_by / sys_updated_by. Default "system". */
  user?: string;
  /**
   * Keep the sys_* values given in `values` instead of stamping them (sys_created_on, sys_updated_on,
   * sys_mod_count, …), like `sysparm_suppress_auto_sys_field=true`. Default false.
   */
  suppressAutoSysFields?: boolean;
}

/** Options of direct deletes. */
export interface DirectDeleteOptions extends DirectWriteOptions {
  /** Write the audit rows of a deletion (sys_audit DELETED, sys_audit_delete for audited tables). Default true;
   * false is a purge that leaves no trace, like the instance's Table Cleaner. */
  audit?: boolean;
}

/** Direct access to one stored table. */
export interface SimTable {
  readonly name: string;
  /** Live rows. */
  readonly count: number;
  /** Field names of the table, inherited ones included. */
  readonly fields: readonly string[];
  /** Inserts a row; unknown fields are ignored; returns the stored row. */
  insert(values: Record<string, string>, options?: DirectWriteOptions): SimRow;
  /** Updates a row; "" clears a field; returns the stored row, or undefined when the sys_id is unknown. */
  update(sysId: string, values: Record<string, string>, options?: DirectWriteOptions): SimRow | undefined;
  /** Deletes a row (audited unless `audit: false`); false when the sys_id is unknown. */
  delete(sysId: string, options?: DirectDeleteOptions): boolean;
  /**
   * Undeletes a row from sys_audit_delete (audited tables only): back with its values and sys_id, and a RECOVERED
   * audit row. undefined when there is no deleted record to restore.
   */
  recover(sysId: string, options?: DirectWriteOptions): SimRow | undefined;
  get(sysId: string): SimRow | undefined;
  /** sys_ids of live rows, ordered by (sys_updated_on, sys_id). */
  sysIds(): string[];
  /** sys_updated_on seconds shared by at least `minSize` rows, largest bucket first. */
  sameSecondBuckets(minSize?: number): Array<{ timestamp: string; count: number }>;
}

/** The background writer (inserts and updates rows of a table at a rate). */
export interface SimWriter {
  readonly running: boolean;
  /** Starts (or restarts) writing with these settings. */
  start(settings: WriterSettings): void;
  stop(): void;
  /** Performs `n` writes now (deterministic; for tests that do not want timers). Returns the sys_ids written. */
  step(n: number, table?: string): string[];
}

export interface Simulator {
  /** Base URL, e.g. "http://127.0.0.1:43817" (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Stops listening, the writer and timers; resolves once the server is closed. */
  stop(): Promise<void>;
  /**
   * Closes the listener and nothing else (tables, writer, clock and faults go on): connections are refused, as
   * when the instance or the network to it is down. `online` listens again on the same port with the same state.
   */
  offline(): Promise<void>;
  online(): Promise<void>;
  /** Generates `n` more rows into a table (deterministic for a given random seed and history). */
  seed(table: string, n: number): void;
  /** Direct access to a stored table; throws for unknown tables and database views. */
  table(name: string): SimTable;
  /** Names of tables and views the API serves. */
  tableNames(): string[];
  readonly clock: InstanceClock;
  readonly faults: FaultRegistry;
  /** Business rules, data policies, write ACLs and quota cancellations on writes (write_rules.ts). */
  readonly writeRules: WriteRuleRegistry;
  readonly journal: Journal;
  readonly counters: Counters;
  readonly users: {
    add(user: SimUserSpec | string): void;
    remove(userName: string): boolean;
    list(): string[];
  };
  readonly oauthClients: {
    add(client: SimOAuthClientSpec | string): void;
    remove(clientId: string): boolean;
    /** Invalidates every issued access and refresh token. */
    revokeAllTokens(): void;
  };
  readonly writer: SimWriter;
  /**
   * Drift a cursor on sys_updated_on cannot see: silent updates, purges without audit, inserts with old
   * timestamps, snapshots and rollbacks of a table (also over HTTP: `/sim/drift/…`).
   */
  readonly drift: DriftMaker;
  /** Switch for PUT semantics (see SimulatorOptions.putClearsOmittedFields). */
  putClearsOmittedFields: boolean;
  /**
   * Threads of each node held by another client's work (SimulatorOptions.semaphore.otherClientThreads); setting
   * it takes (or gives back) threads at once. Throws without a semaphore.
   */
  otherClientThreads: number;
  /** Switch for glide.invalid_query.returns_no_rows (see SimulatorOptions.invalidQueryReturnsNoRows). */
  invalidQueryReturnsNoRows: boolean;
}
