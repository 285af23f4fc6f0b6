/**
 * Source partition identity of a table: the table name (not the alias, so aliases can be renamed freely), the
 * lower-cased instance host, and a fingerprint of the base query and the query.domain setting (changing either
 * gives a new partition, which starts again from its start timestamp).
 */
import { createHash } from "node:crypto";
import type { SourcePartition } from "../connect/record.ts";

export const PARTITION_TABLE = "table";
export const PARTITION_INSTANCE = "instance";
export const PARTITION_QUERY_FINGERPRINT = "query_fingerprint";

/**
 * A short stable digest of the base query and query.domain. The query is taken as written (after trimming):
 * two spellings of the same filter are different partitions, which errs on the side of re-reading.
 */
export function queryFingerprint(query: string, queryDomain: boolean): string {
  return createHash("sha256").update(`${query.trim()}\u0000query.domain=${queryDomain}`).digest("hex").slice(
    0,
    16,
  );
}

export function sourcePartition(
  table: string,
  instanceHost: string,
  query: string,
  queryDomain: boolean,
): SourcePartition {
  return {
    [PARTITION_TABLE]: table,
    [PARTITION_INSTANCE]: instanceHost.toLowerCase(),
    [PARTITION_QUERY_FINGERPRINT]: queryFingerprint(query, queryDomain),
  };
}
