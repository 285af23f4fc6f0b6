/** Everything a request handler needs from the running simulator. */
import type { InstanceClock } from "./clock.ts";
import type { Counters } from "./counters.ts";
import type { FaultRegistry } from "./faults.ts";
import type { Journal } from "./journal.ts";
import type { Database } from "./store/database.ts";
import type { UserDirectory } from "./auth/users.ts";
import type { OAuthServer } from "./auth/oauth.ts";
import type { Random } from "./random.ts";
import type { RateLimitRule } from "./rate_limit_rule.ts";
import type { Cluster } from "./limits/cluster.ts";
import type { WriteRuleRegistry } from "./write_rules.ts";

export interface SimState {
  db: Database;
  clock: InstanceClock;
  counters: Counters;
  faults: FaultRegistry;
  /** Business rules, data policies, write ACLs and quota cancellations that refuse or bend writes. */
  writeRules: WriteRuleRegistry;
  journal: Journal;
  users: UserDirectory;
  oauth: OAuthServer;
  /** Generator of sys_ids for rows created through the API. */
  ids: Random;
  /** The rate-limit rule covering every user, if one is configured. */
  rateLimit?: RateLimitRule;
  /** The nodes, their sessions and semaphores, when any of the instance's limits is switched on. */
  cluster?: Cluster;
  settings: {
    putClearsOmittedFields: boolean;
    invalidQueryReturnsNoRows: boolean;
    defaultLimit: number;
    latencyMs: number;
    /** The Batch API's transaction quota: items not started within it come back unserviced. */
    batchQuotaMs: number;
    publicOrigin?: string;
  };
}
