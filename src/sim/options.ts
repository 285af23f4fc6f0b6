/**
 * Options of the simulator, each with its default. `resolveOptions` fills the defaults in one place.
 */
import type { ClockSetting } from "./clock.ts";
import type { FaultRule } from "./faults.ts";
import type { WriterSettings } from "./writer.ts";
import type { RateLimitRuleSpec } from "./rate_limit_rule.ts";
import type { QuotaShape } from "./limits/quota.ts";
import type { InstalledWriteRule } from "./write_rules.ts";

/** A basic-auth user, also a sys_user row. */
export interface SimUserSpec {
  /** sys_user.user_name, the login name. */
  userName: string;
  password: string;
  /** IANA zone of sys_user.time_zone, used for display values and gs.* date helpers. Default "UTC". */
  timeZone?: string;
  /** sys_user.date_format for display values. Default "yyyy-MM-dd". */
  dateFormat?: string;
  /** Admins may use sysparm_query_no_domain and read every table. Default true. */
  admin?: boolean;
  /** Roles of a non-admin user, e.g. `["audit_viewer"]` to read sys_audit and sys_audit_delete. Default []. */
  roles?: string[];
}

/** An OAuth application registry entry (oauth_entity). */
export interface SimOAuthClientSpec {
  clientId: string;
  clientSecret: string;
  /** Access token lifespan in seconds. Default 1800 (the response says `expires_in` 1799, as instances do). */
  accessTokenLifespanSeconds?: number;
  /** Refresh token lifespan in seconds. Default 8640000 (100 days). */
  refreshTokenLifespanSeconds?: number;
  /**
   * The "OAuth Application User" a client_credentials token acts as, by user_name.
   * Default: the first configured user. `null` disables the client_credentials grant for this client.
   */
  applicationUser?: string | null;
}

/** TLS settings; without them the simulator serves plain HTTP. */
export interface SimTlsOptions {
  /** PEM certificate chain of the server. */
  cert: string;
  /** PEM private key of the server. */
  key: string;
  /** PEM CA bundle that client certificates must chain to (mTLS). Default: none. */
  caForClientCerts?: string;
  /** Refuse TLS handshakes without a valid client certificate. Default false (needs caForClientCerts). */
  requireClientCert?: boolean;
}

/** Instance sessions (instance-limits.md §3). */
export interface SimSessionOptions {
  /** Requests that may wait for a busy session; one more is answered 202 and not run. Default 10. */
  maxWaiters?: number;
  /** A session unused this long (instance time) expires. Default 1800. */
  idleSeconds?: number;
  /** Sessions kept per node (the oldest idle ones are dropped beyond it). Default 100000. */
  maxPerNode?: number;
}

/** The API_INT semaphore of each node (instance-limits.md §2). */
export interface SimSemaphoreOptions {
  /** Threads per node. Default 4. */
  threads?: number;
  /** Requests that may wait for a thread, per node; one more gets a bare 429. Default 50. */
  queue?: number;
  /** Threads of each node another client's work holds (changeable: `Simulator.otherClientThreads`). Default 0. */
  otherClientThreads?: number;
}

export interface SimulatorOptions {
  /** TCP port; 0 picks a free one (read it back from `Simulator.url`). Default 0. */
  port?: number;
  /** Interface to bind. Default "127.0.0.1". */
  host?: string;
  /** Rows to generate per table at start, e.g. `{ incident: 100000, problem: 500 }`. Default {}. */
  seed?: Record<string, number>;
  /** Seed of every pseudo-random choice (generated rows, fault probabilities, writer). Default 1. */
  randomSeed?: number;
  /**
   * Basic-auth users, as objects or "user:password" strings. Default `[{ userName: "admin", password: "admin" }]`.
   * An empty list leaves every API route open to nobody but OAuth clients.
   */
  users?: Array<SimUserSpec | string>;
  /** OAuth clients, as objects or "client_id:client_secret" strings. Default []. */
  oauthClients?: Array<SimOAuthClientSpec | string>;
  /** Start of the instance clock. Default `{ mode: "real" }`. */
  clock?: ClockSetting;
  /** Latency of every request, in milliseconds, counted from its arrival (router.ts `sleepUntil`). Default 0. */
  latencyMs?: number;
  /**
   * The Batch API's transaction quota ("REST Batch API request timeout"): items not started within it are
   * returned in `unserviced_requests`. Default 30000.
   */
  batchQuotaMs?: number;
  /** Faults installed at start (more can be added through `Simulator.faults`). Default []. */
  faults?: FaultRule[];
  /** Business rules, data policies, write ACLs and quota cancellations on writes (write_rules.ts). Default []. */
  writeRules?: InstalledWriteRule[];
  /** Starts the background writer at start. Default: not running. */
  writer?: WriterSettings;
  /** Serve HTTPS (and optionally require client certificates). Default: plain HTTP. */
  tls?: SimTlsOptions;
  /**
   * PUT clears the fields left out of the body. Default false: on real instances PUT and PATCH are the
   * same for the Table API (omitted fields are kept).
   */
  putClearsOmittedFields?: boolean;
  /**
   * The instance property `glide.invalid_query.returns_no_rows`: a query naming an unknown field returns no
   * rows instead of silently dropping the unknown term. Default false (the instance default).
   */
  invalidQueryReturnsNoRows?: boolean;
  /** `sysparm_limit` when the request has none. Default 10000. */
  defaultLimit?: number;
  /**
   * Size of the same-second buckets that seeding puts into generated tables (several such buckets per
   * table, capped at a fifth of the table), so keyset paging meets buckets larger than a page. Default 1500.
   */
  seedBucketSize?: number;
  /** Maximum journal entries kept (oldest dropped first). Default 100000. */
  journalLimit?: number;
  /** A rate-limit rule covering every user (requests per window, each user counted apart). Default: none. */
  rateLimit?: RateLimitRuleSpec;
  /**
   * Sessions: a cookie-less request opens one (Set-Cookie JSESSIONID, glide_session_store, glide_user_route and
   * the balancer's cookie), a request with its cookies reuses it, its requests run one at a time, and past
   * `maxWaiters` waiting ones the answer is 202 with an empty body, the request not run. Default: off (no
   * cookies, every request runs at once).
   */
  sessions?: SimSessionOptions;
  /**
   * The API_INT semaphore: per node `threads` requests run at once, `queue` more wait (their wait is `sem_wait` in
   * `Server-Timing`), one more gets a bare 429 (no Retry-After, no body). Default: off (no limit).
   */
  semaphore?: SimSemaphoreOptions;
  /**
   * The transaction quota ("REST Table API request timeout", 60 s on instances): a request still running `ms`
   * after it reached its node's semaphore queue is cancelled: a list answers 200 with its body cut (`shape`
   * `cut_record`, the default: inside a record, invalid JSON; `complete_rows`: valid JSON with the rows sent so
   * far), any other request 200 with the error object and nothing done; one still queued answers 500. The
   * latency options are the transaction's work. Default: off.
   */
  transactionQuota?: { ms: number; shape?: QuotaShape };
  /** Nodes behind the load balancer, each with its own sessions (and semaphore). Default 1. */
  nodes?: number;
  /** The instance name in the balancer's cookie `BIGipServerpool_<name>`. Default "sim". */
  instanceName?: string;
  /**
   * Origin used in reference links, Location and Link headers, e.g. "https://dev12345.service-now.com".
   * Default: the origin the request was addressed to (its Host header).
   */
  publicOrigin?: string;
}

export interface ResolvedOptions {
  port: number;
  host: string;
  seed: Record<string, number>;
  randomSeed: number;
  users: Required<SimUserSpec>[];
  oauthClients: Required<SimOAuthClientSpec>[];
  clock: ClockSetting;
  latencyMs: number;
  batchQuotaMs: number;
  faults: FaultRule[];
  writeRules: InstalledWriteRule[];
  writer?: WriterSettings;
  tls?: SimTlsOptions;
  putClearsOmittedFields: boolean;
  invalidQueryReturnsNoRows: boolean;
  defaultLimit: number;
  seedBucketSize: number;
  journalLimit: number;
  publicOrigin?: string;
  rateLimit?: RateLimitRuleSpec;
  sessions?: Required<SimSessionOptions>;
  semaphore?: Required<SimSemaphoreOptions>;
  transactionQuota?: { ms: number; shape: QuotaShape };
  nodes: number;
  instanceName: string;
}

/** Splits "name:secret" at the first colon (secrets may contain colons). */
function splitPair(text: string, what: string): [string, string] {
  const at = text.indexOf(":");
  if (at <= 0) throw new TypeError(`${what} must look like name:secret`);
  return [text.slice(0, at), text.slice(at + 1)];
}

export function resolveUser(spec: SimUserSpec | string): Required<SimUserSpec> {
  const s: SimUserSpec = typeof spec === "string"
    ? (([userName, password]) => ({ userName, password }))(splitPair(spec, "user"))
    : spec;
  return {
    userName: s.userName,
    password: s.password,
    timeZone: s.timeZone ?? "UTC",
    dateFormat: s.dateFormat ?? "yyyy-MM-dd",
    admin: s.admin ?? true,
    roles: s.roles ?? [],
  };
}

export function resolveOAuthClient(
  spec: SimOAuthClientSpec | string,
  defaultApplicationUser: string | null,
): Required<SimOAuthClientSpec> {
  const s: SimOAuthClientSpec = typeof spec === "string"
    ? (([clientId, clientSecret]) => ({ clientId, clientSecret }))(splitPair(spec, "oauth client"))
    : spec;
  return {
    clientId: s.clientId,
    clientSecret: s.clientSecret,
    accessTokenLifespanSeconds: s.accessTokenLifespanSeconds ?? 1800,
    refreshTokenLifespanSeconds: s.refreshTokenLifespanSeconds ?? 8640000,
    applicationUser: s.applicationUser === undefined ? defaultApplicationUser : s.applicationUser,
  };
}

export function resolveOptions(options: SimulatorOptions = {}): ResolvedOptions {
  const users = (options.users ?? [{ userName: "admin", password: "admin" }]).map(resolveUser);
  const firstUser = users[0]?.userName ?? null;
  return {
    port: options.port ?? 0,
    host: options.host ?? "127.0.0.1",
    seed: options.seed ?? {},
    randomSeed: options.randomSeed ?? 1,
    users,
    oauthClients: (options.oauthClients ?? []).map((c) => resolveOAuthClient(c, firstUser)),
    clock: options.clock ?? { mode: "real" },
    latencyMs: options.latencyMs ?? 0,
    batchQuotaMs: options.batchQuotaMs ?? 30_000,
    faults: options.faults ?? [],
    writeRules: options.writeRules ?? [],
    writer: options.writer,
    tls: options.tls,
    putClearsOmittedFields: options.putClearsOmittedFields ?? false,
    invalidQueryReturnsNoRows: options.invalidQueryReturnsNoRows ?? false,
    defaultLimit: options.defaultLimit ?? 10000,
    seedBucketSize: options.seedBucketSize ?? 1500,
    journalLimit: options.journalLimit ?? 100000,
    publicOrigin: options.publicOrigin,
    rateLimit: options.rateLimit,
    sessions: options.sessions && {
      maxWaiters: options.sessions.maxWaiters ?? 10,
      idleSeconds: options.sessions.idleSeconds ?? 1800,
      maxPerNode: options.sessions.maxPerNode ?? 100000,
    },
    semaphore: options.semaphore && {
      threads: options.semaphore.threads ?? 4,
      queue: options.semaphore.queue ?? 50,
      otherClientThreads: options.semaphore.otherClientThreads ?? 0,
    },
    transactionQuota: options.transactionQuota && {
      ms: options.transactionQuota.ms,
      shape: options.transactionQuota.shape ?? "cut_record",
    },
    nodes: options.nodes ?? 1,
    instanceName: options.instanceName ?? "sim",
  };
}
