/**
 * Sends one planned write: POST for a create, PATCH or PUT (`svc.sink.update.method`) for an update, DELETE
 * for a delete, and what a 404 means for an update or delete (`svc.sink.not.found.behavior`):
 * `fail` a record error; `ignore` nothing to do; `create` the row is created (with the key's sys id), for
 * updates only: a row that is gone needs no delete. An upsert creates on 404 whatever the setting.
 *
 * Statuses that condemn the record become `SinkRecordError`s; retries-exhausted failures and statuses that
 * concern the whole task (401 …) are thrown as they are.
 */
import type { RowCreator } from "./ambiguous_create.ts";
import { MappingError, SinkRecordError } from "./record_error.ts";
import type { Outcome } from "./reporter_record.ts";
import type { NotFoundBehavior } from "./settings.ts";
import { asRecordError, isHttpStatus, type SinkTableApi, WRITE_ANSWER_FIELDS } from "./table_api.ts";
import type { WritePlan } from "./write_plan.ts";

export interface WriteResult {
  operation: "create" | "update" | "delete";
  sysId: string | null;
  /** The instance's status for the last request (201 created, 200 updated, 204 deleted, 404 ignored). */
  status: number;
  outcome: Outcome;
  retries: number;
}

export interface WriterSettings {
  notFound: NotFoundBehavior;
  updateMethod: "PATCH" | "PUT";
}

export class RecordWriter {
  constructor(
    private readonly api: SinkTableApi,
    private readonly creator: RowCreator,
    private readonly settings: WriterSettings,
  ) {}

  async write(plan: WritePlan, body: Record<string, string>, signal?: AbortSignal): Promise<WriteResult> {
    switch (plan.operation) {
      case "create":
        return await this.creator.create({ table: plan.table, body, sysId: plan.sysId, signal });
      case "update":
      case "upsert":
        return await this.#update(plan, body, signal);
      case "delete":
        return await this.#delete(plan, signal);
    }
  }

  async #update(plan: WritePlan, body: Record<string, string>, signal?: AbortSignal): Promise<WriteResult> {
    const sysId = requireSysId(plan);
    try {
      await this.api.update(plan.table, sysId, body, this.settings.updateMethod, {
        fields: WRITE_ANSWER_FIELDS,
        signal,
      });
      return { operation: "update", sysId, status: 200, outcome: "updated", retries: 0 };
    } catch (error) {
      if (!isHttpStatus(error, 404)) throw asRecordError(error);
      const behavior = plan.operation === "upsert" ? "create" : this.settings.notFound;
      switch (behavior) {
        case "fail":
          throw notFound(asRecordError(error), plan);
        case "ignore":
          return { operation: "update", sysId, status: 404, outcome: "not_found_ignored", retries: 0 };
        case "create":
          return await this.creator.create({ table: plan.table, body, sysId, signal });
      }
    }
  }

  async #delete(plan: WritePlan, signal?: AbortSignal): Promise<WriteResult> {
    const sysId = requireSysId(plan);
    let result: "deleted" | "not_found";
    try {
      result = await this.api.delete(plan.table, sysId, { signal });
    } catch (error) {
      throw asRecordError(error);
    }
    if (result === "deleted") {
      return { operation: "delete", sysId, status: 204, outcome: "deleted", retries: 0 };
    }
    if (this.settings.notFound === "fail") {
      throw new SinkRecordError(
        "not_found",
        `DELETE of row ${sysId} in table "${plan.table}" returned HTTP 404: no such row, or access control ` +
          `hides it (svc.sink.not.found.behavior=fail)`,
        { status: 404 },
      );
    }
    return { operation: "delete", sysId, status: 404, outcome: "not_found_ignored", retries: 0 };
  }
}

function requireSysId(plan: WritePlan): string {
  if (plan.sysId === null) throw new MappingError(`${plan.operation} needs a sys id`);
  return plan.sysId;
}

function notFound(error: unknown, plan: WritePlan): unknown {
  if (!(error instanceof SinkRecordError)) return error;
  return new SinkRecordError(
    "not_found",
    `${error.message} (no row ${plan.sysId} in table "${plan.table}", or access control hides it; ` +
      `svc.sink.not.found.behavior=fail)`,
    { status: 404, responseExcerpt: error.responseExcerpt, cause: error.cause },
  );
}
