/**
 * Startup probe of deletion capture: one audit row of the table must be readable. A refusal fails the task at once
 * with the table, the alias and the role that grants access, instead of a delete stream that backs off forever
 * (and holds the table back with it, see delete_horizon.ts). A retriable failure is only logged.
 */
import type { Logger } from "../../observability/log.ts";
import {
  InstanceHttpError,
  InstanceRetriableError,
  ResponseTooLargeError,
  type TableClient,
} from "../../instance/mod.ts";
import { StartupProbeError } from "../startup_probe.ts";
import type { TableSettings } from "../settings.ts";
import { AUDIT_READ_ROLE, AUDIT_TABLE, auditQuery } from "./audit_stream.ts";

export async function probeAuditAccess(
  client: TableClient,
  t: TableSettings,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  try {
    await client.list(AUDIT_TABLE, { query: auditQuery(t.table), limit: 1, fields: ["sys_id"], signal });
  } catch (error) {
    if (error instanceof InstanceRetriableError || error instanceof ResponseTooLargeError) {
      logger.warn(
        { table: t.table, alias: t.alias },
        `startup probe of ${AUDIT_TABLE} for deletes of ${t.table} did not complete: ${error.message}`,
      );
      return;
    }
    if (error instanceof InstanceHttpError) {
      throw new StartupProbeError(
        `startup probe: svc.table.${t.alias}.capture.deletes=true needs read access to ${AUDIT_TABLE}, where the ` +
          `instance records deletions of ${t.table}, but the integration user was refused (HTTP ${error.status}): ` +
          `grant it the ${AUDIT_READ_ROLE} role (or admin), or turn deletion capture off: ${error.message}`,
        { cause: error },
      );
    }
    throw error;
  }
}
