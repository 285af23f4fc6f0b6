/** Composition of the simulator: database, auth, clock, faults, journal, writer and the listener. */
import { RateLimitRule } from "./rate_limit_rule.ts";
import { InstanceClock } from "./clock.ts";
import { Counters } from "./counters.ts";
import { Cluster } from "./limits/cluster.ts";
import { FaultRegistry } from "./faults.ts";
import { WriteRuleRegistry } from "./write_rules.ts";
import { formatGlideDateTime } from "./glide_time.ts";
import { Journal } from "./journal.ts";
import type {
  DirectDeleteOptions,
  DirectWriteOptions,
  SimRow,
  SimTable,
  Simulator,
  SimWriter,
} from "./api.ts";
import { deleteAudited, recoverDeleted } from "./store/deletion_audit.ts";
import {
  type ResolvedOptions,
  resolveOAuthClient,
  resolveOptions,
  resolveUser,
  type SimOAuthClientSpec,
  type SimulatorOptions,
  type SimUserSpec,
} from "./options.ts";
import { Random } from "./random.ts";
import { handleRequest } from "./router.ts";
import { listen, type Listener } from "./server.ts";
import { describeTables } from "./seed/dictionary.ts";
import {
  seedConfigurationItems,
  type SeedContext,
  seedGroups,
  seedLoginUsers,
  seedUsers,
} from "./seed/reference_data.ts";
import { seedTaskRows } from "./seed/task_rows.ts";
import type { SimState } from "./state.ts";
import { Database } from "./store/database.ts";
import type { TableStore, WriteContext } from "./store/table_store.ts";
import { UserDirectory } from "./auth/users.ts";
import { OAuthServer } from "./auth/oauth.ts";
import { BackgroundWriter } from "./writer.ts";
import { type DriftMaker, driftOf } from "./drift.ts";
import { logger } from "../observability/log.ts";

const log = logger("sim");

/** Reference rows generated at start so task rows have users, groups and CIs to point at. */
const BASE_ROWS = { sys_user: 200, sys_user_group: 24, cmdb_ci: 300 };

/** What a table's seeder gets: the store to fill, how many rows, and the rows of the tables it refers to. */
interface SeedRequest {
  store: TableStore;
  n: number;
  ctx: SeedContext;
  /** The sys ids of a table's live rows. */
  ids: (table: string) => string[];
  /** The login names of the users. */
  userNames: () => string[];
  bucketSize: number;
}

function seedTaskTable(table: string, r: SeedRequest): void {
  const refs = {
    userIds: r.ids("sys_user"),
    userNames: r.userNames(),
    groupIds: r.ids("sys_user_group"),
    ciIds: r.ids("cmdb_ci"),
    problemIds: table === "incident" ? r.ids("problem") : [],
  };
  seedTaskRows(r.store, r.n, r.ctx, refs, r.bucketSize);
}

/** How the simulator generates each table's rows; the other tables' rows describe the schema. */
const SEEDERS: Readonly<Record<string, (r: SeedRequest) => void>> = {
  sys_user: (r) => seedUsers(r.store, r.n, r.ctx),
  sys_user_group: (r) => seedGroups(r.store, r.n, r.ctx, r.ids("sys_user")),
  cmdb_ci: (r) => seedConfigurationItems(r.store, r.n, r.ctx, r.ids("sys_user_group")),
  incident: (r) => seedTaskTable("incident", r),
  problem: (r) => seedTaskTable("problem", r),
  task: (r) => seedTaskTable("task", r),
};

/** The tables whose rows the simulator can generate (`seed`, `tablesync simulate --seed`). */
export const SEEDABLE_TABLES: readonly string[] = Object.keys(SEEDERS);

export class SimulatorImpl implements Simulator {
  readonly clock: InstanceClock;
  readonly faults: FaultRegistry;
  readonly writeRules = new WriteRuleRegistry();
  readonly journal: Journal;
  readonly counters = new Counters();
  readonly writer: SimWriter;
  readonly users: Simulator["users"];
  readonly oauthClients: Simulator["oauthClients"];
  #state: SimState;
  #db = new Database();
  #options: ResolvedOptions;
  #seedRandom: Random;
  #backgroundWriter: BackgroundWriter;
  #listener?: Listener;

  private constructor(options: ResolvedOptions) {
    this.#options = options;
    this.clock = new InstanceClock(options.clock);
    this.faults = new FaultRegistry(options.randomSeed);
    this.journal = new Journal(options.journalLimit);
    this.#seedRandom = new Random(options.randomSeed);
    const userTable = this.#db.store("sys_user")!;
    const directory = new UserDirectory(userTable);
    const oauth = new OAuthServer(directory, () => this.clock.nowMs());
    this.#state = {
      db: this.#db,
      clock: this.clock,
      counters: this.counters,
      faults: this.faults,
      writeRules: this.writeRules,
      journal: this.journal,
      users: directory,
      oauth,
      ids: new Random(options.randomSeed ^ 0x5eed),
      rateLimit: options.rateLimit ? new RateLimitRule(options.rateLimit) : undefined,
      cluster: clusterOf(options, this.counters),
      settings: {
        putClearsOmittedFields: options.putClearsOmittedFields,
        invalidQueryReturnsNoRows: options.invalidQueryReturnsNoRows,
        defaultLimit: options.defaultLimit,
        latencyMs: options.latencyMs,
        batchQuotaMs: options.batchQuotaMs,
        publicOrigin: options.publicOrigin?.replace(/\/+$/, ""),
      },
    };
    for (const u of options.users) directory.add(u);
    for (const c of options.oauthClients) oauth.addClient(c);
    this.users = {
      add: (user: SimUserSpec | string) => {
        const resolved = resolveUser(user);
        directory.add(resolved);
        seedLoginUsers(userTable, [resolved], this.#seedContext());
      },
      remove: (userName: string) => directory.remove(userName),
      list: () => directory.names(),
    };
    this.oauthClients = {
      add: (client: SimOAuthClientSpec | string) =>
        oauth.addClient(resolveOAuthClient(client, directory.names()[0] ?? null)),
      remove: (clientId: string) => oauth.removeClient(clientId),
      revokeAllTokens: () => oauth.revokeAll(),
    };
    this.#backgroundWriter = new BackgroundWriter(
      new Random(options.randomSeed ^ 0x3a17),
      this.clock,
      (n) => this.#db.store(n),
    );
    const bw = this.#backgroundWriter;
    this.writer = {
      get running() {
        return bw.running;
      },
      start: (s) => bw.start(s),
      stop: () => bw.stop(),
      step: (n, table) => bw.step(n, table),
    };
    for (const f of options.faults) this.faults.add(f);
    for (const r of options.writeRules) this.writeRules.add(r);
  }

  static async start(input: SimulatorOptions): Promise<SimulatorImpl> {
    const options = resolveOptions(input);
    const sim = new SimulatorImpl(options);
    const started = performance.now();
    sim.#seedBase();
    for (const [table, n] of Object.entries(options.seed)) sim.seed(table, n);
    log.debug({ ms: Math.round(performance.now() - started), seed: options.seed }, "simulator seeded");
    sim.#listener = await sim.#listen(options.port);
    if (options.writer) sim.writer.start(options.writer);
    return sim;
  }

  get drift(): DriftMaker {
    return driftOf(this.#db, this.clock, this.#state.ids);
  }

  #listen(port: number): Promise<Listener> {
    return listen(this.#options.host, port, this.#options.tls, (req) => handleRequest(this.#state, req));
  }

  /** The url and port outlive an `offline` spell: they are the address the instance comes back on. */
  #address?: { url: string; port: number };

  get url(): string {
    return (this.#address ??= this.#listener!).url;
  }
  get port(): number {
    return (this.#address ??= this.#listener!).port;
  }

  async offline(): Promise<void> {
    if (!this.#listener) return;
    this.#address ??= { url: this.#listener.url, port: this.#listener.port };
    const listener = this.#listener;
    this.#listener = undefined;
    await listener.close();
  }

  async online(): Promise<void> {
    if (this.#listener) return;
    this.#listener = await this.#listen(this.port);
  }
  get putClearsOmittedFields(): boolean {
    return this.#state.settings.putClearsOmittedFields;
  }
  set putClearsOmittedFields(on: boolean) {
    this.#state.settings.putClearsOmittedFields = on;
  }
  get invalidQueryReturnsNoRows(): boolean {
    return this.#state.settings.invalidQueryReturnsNoRows;
  }
  set invalidQueryReturnsNoRows(on: boolean) {
    this.#state.settings.invalidQueryReturnsNoRows = on;
  }

  get otherClientThreads(): number {
    return this.#state.cluster?.semaphores()[0]?.held ?? 0;
  }
  set otherClientThreads(n: number) {
    if (!this.#state.cluster?.settings.semaphore) {
      throw new RangeError("no semaphore: start with `semaphore`");
    }
    this.#state.cluster.holdThreads(n);
  }

  async stop(): Promise<void> {
    this.#backgroundWriter.stop();
    this.#state.cluster?.close();
    await this.#listener?.close();
  }

  #seedContext(): SeedContext {
    return { random: this.#seedRandom, endSeconds: this.clock.nowSeconds() };
  }

  #seedBase(): void {
    const ctx = this.#seedContext();
    describeTables(
      this.#db.catalog,
      this.#db.store("sys_db_object")!,
      this.#db.store("sys_dictionary")!,
      this.#seedRandom,
      ctx.endSeconds - 86400 * 400,
    );
    seedLoginUsers(this.#db.store("sys_user")!, this.#options.users, ctx);
    for (const [table, n] of Object.entries(BASE_ROWS)) this.seed(table, n);
  }

  #ids(table: string): string[] {
    const store = this.#db.store(table)!;
    const reader = store.reader("sys_id")!;
    return [...store.liveRows()].map((r) => reader.get(r));
  }

  seed(table: string, n: number): void {
    const seeder = SEEDERS[table];
    if (!seeder) {
      throw new RangeError(
        `cannot seed ${table}: the simulator generates rows for ${SEEDABLE_TABLES.join(", ")}`,
      );
    }
    const store = this.#db.store(table);
    if (!store) throw new RangeError(`cannot seed ${table}: not a stored table`);
    if (!Number.isInteger(n) || n < 0) {
      throw new RangeError(`row count must be a non-negative integer, got ${n}`);
    }
    seeder({
      store,
      n,
      ctx: this.#seedContext(),
      ids: (t) => this.#ids(t),
      userNames: () => {
        const users = this.#db.store("sys_user")!;
        const names = users.reader("user_name")!;
        return [...users.liveRows()].map((r) => names.get(r));
      },
      bucketSize: this.#options.seedBucketSize,
    });
  }

  table(name: string): SimTable {
    const store = this.#db.store(name);
    if (!store) throw new RangeError(`no stored table ${name}`);
    return new DirectTable(store, this.clock, this.#state.ids, this.#db);
  }

  tableNames(): string[] {
    return this.#db.names();
  }
}

/** The nodes and their limits, when an option switches one on (without, requests go straight through). */
function clusterOf(options: ResolvedOptions, counters: Counters): Cluster | undefined {
  if (!options.sessions && !options.semaphore && !options.transactionQuota && options.nodes === 1) {
    return undefined;
  }
  return new Cluster({
    nodes: options.nodes,
    sessions: options.sessions,
    semaphore: options.semaphore,
    quota: options.transactionQuota,
    balancerCookie: `BIGipServerpool_${options.instanceName}`,
    secureCookies: options.tls !== undefined,
  }, counters);
}

/** SimTable over a store: direct writes that still stamp system fields from the instance clock. */
class DirectTable implements SimTable {
  #store: TableStore;
  #clock: InstanceClock;
  #ids: Random;
  #db: Database;

  constructor(store: TableStore, clock: InstanceClock, ids: Random, db: Database) {
    this.#store = store;
    this.#clock = clock;
    this.#ids = ids;
    this.#db = db;
  }

  get name(): string {
    return this.#store.name;
  }
  get count(): number {
    return this.#store.liveCount;
  }
  get fields(): readonly string[] {
    return this.#store.fieldNames;
  }

  #ctx(options: DirectWriteOptions = {}): WriteContext {
    return {
      nowSeconds: this.#clock.nowSeconds(),
      user: options.user ?? "system",
      suppressAutoSysFields: options.suppressAutoSysFields ?? false,
      newSysId: () => this.#ids.hex32(),
    };
  }

  insert(values: Record<string, string>, options?: DirectWriteOptions): SimRow {
    return this.#store.record(this.#store.insert(values, this.#ctx(options)));
  }

  update(sysId: string, values: Record<string, string>, options?: DirectWriteOptions): SimRow | undefined {
    const row = this.#store.rowBySysId(sysId);
    if (row < 0) return undefined;
    this.#store.update(row, values, this.#ctx(options));
    return this.#store.record(row);
  }

  delete(sysId: string, options: DirectDeleteOptions = {}): boolean {
    const row = this.#store.rowBySysId(sysId);
    if (row < 0) return false;
    if (options.audit === false) this.#store.delete(row);
    else deleteAudited(this.#db, this.#store, row, this.#ctx(options));
    return true;
  }

  recover(sysId: string, options?: DirectWriteOptions): SimRow | undefined {
    const row = recoverDeleted(this.#db, this.#store, sysId, this.#ctx(options));
    return row < 0 ? undefined : this.#store.record(row);
  }

  get(sysId: string): SimRow | undefined {
    const row = this.#store.rowBySysId(sysId);
    return row < 0 ? undefined : this.#store.record(row);
  }

  sysIds(): string[] {
    const index = this.#store.updatedIndex;
    const ids = this.#store.reader("sys_id")!;
    const out: string[] = new Array(index.length);
    for (let p = 0; p < index.length; p++) out[p] = ids.get(index.at(p));
    return out;
  }

  sameSecondBuckets(minSize = 2): Array<{ timestamp: string; count: number }> {
    const index = this.#store.updatedIndex;
    const secs = this.#store.reader("sys_updated_on")!.seconds!;
    const out: Array<{ timestamp: string; count: number }> = [];
    let p = 0;
    while (p < index.length) {
      const s = secs(index.at(p));
      const end = index.upperBound(s);
      if (end - p >= minSize) out.push({ timestamp: formatGlideDateTime(s), count: end - p });
      p = Math.max(end, p + 1);
    }
    return out.sort((a, b) => b.count - a.count);
  }
}
