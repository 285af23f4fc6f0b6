/**
 * Sends one planned write: POST for a create, PATCH or PUT (`svc.sink.update.method`) for an update, DELETE
 * for a delete, and what a 404 means for an update or delete (`svc.sink.not.found.behavior`):
 * `fail` a record error; `ignore` nothing to do; `create` the row is created (with the key's sys id), for
 * updates only: a row that is gone needs no delete. An upsert creates on 404 whatever the setting.
 *
 * Statuses that condemn the record become `SinkRecordError`s; retries-exhausted failures and statuses that
 * concern the whole task (401 …) are thrown as they are. A create or update that answered is verified
 * (write_verify.ts): a field that did not take is a `not_written` record error.
 */
import type { RowCreator } from "./ambiguous_create.ts";
import { MappingError, SinkRecordError } from "./record_error.ts";
import type { Outcome } from "./reporter_record.ts";
import type { NotFoundBehavior } from "./settings.ts";
import { asRecordError, isHttpStatus, type SinkTableApi } from "./table_api.ts";
import type { TableRow } from "../instance/mod.ts";
import { notWrittenError, WriteVerifier } from "./write_verify.ts";
import type { WritePlan } from "./write_plan.ts";

export interface WriteResult {
  operation: "create" | "update" | "delete";
  sysId: string | null;
  /** The instance's status for the last request (201 created, 200 updated, 204 deleted, 404 ignored). */
  status: number;
  outcome: Outcome;
  retries: number;
  /** The row as the instance answered a create or update (the fields asked back). */
  row?: TableRow;
  /** Fields in `svc.sink.verify.rewritten.fields` the instance changed (counted, not an error). */
  rewritten?: string[];
}

export interface WriterSettings {
  notFound: NotFoundBehavior;
  updateMethod: "PATCH" | "PUT";
}

/** The dictionary types of a table's fields, or null when the dictionary cannot be read. */
export type FieldTypes = (table: string, signal?: AbortSignal) => Promise<ReadonlyMap<string, string> | null>;

export class RecordWriter {
  constructor(
    private readonly api: SinkTableApi,
    private readonly creator: RowCreator,
    private readonly settings: WriterSettings,
    private readonly verifier: WriteVerifier = new WriteVerifier({
      enabled: false,
      rewritten: new Set(),
      ignored: new Set(),
    }),
    private readonly fieldTypes: FieldTypes = () => Promise.resolve(null),
  ) {}

  async write(plan: WritePlan, body: Record<string, string>, signal?: AbortSignal): Promise<WriteResult> {
    if (plan.operation === "delete") return await this.#delete(plan, signal);
    const answerFields = this.verifier.answerFields(body);
    const result = plan.operation === "create"
      ? await this.creator.create({ table: plan.table, body, sysId: plan.sysId, answerFields, signal })
      : await this.#update(plan, body, answerFields, signal);
    return await this.#verified(plan.table, body, result, signal);
  }

  /** The result, or a `not_written` record error when a field the record sent did not take. */
  async #verified(
    table: string,
    body: Record<string, string>,
    result: WriteResult,
    signal?: AbortSignal,
  ): Promise<WriteResult> {
    if (!this.verifier.settings.enabled || result.row === undefined) return result;
    const types = await this.fieldTypes(table, signal).catch(() => null);
    const { notWritten, rewritten } = this.verifier.compare(body, result.row, types);
    if (notWritten.length > 0) throw notWrittenError(table, result.sysId, notWritten);
    return rewritten.length > 0 ? { ...result, rewritten } : result;
  }

  async #update(
    plan: WritePlan,
    body: Record<string, string>,
    answerFields: readonly string[],
    signal?: AbortSignal,
  ): Promise<WriteResult> {
    const sysId = requireSysId(plan);
    try {
      const row = await this.api.update(plan.table, sysId, body, this.settings.updateMethod, {
        fields: [...answerFields],
        signal,
      });
      return { operation: "update", sysId, status: 200, outcome: "updated", retries: 0, row };
    } catch (error) {
      if (!isHttpStatus(error, 404)) throw asRecordError(error);
      const behavior = plan.operation === "upsert" ? "create" : this.settings.notFound;
      switch (behavior) {
        case "fail":
          throw notFound(asRecordError(error), plan);
        case "ignore":
          return { operation: "update", sysId, status: 404, outcome: "not_found_ignored", retries: 0 };
        case "create":
          return await this.creator.create({ table: plan.table, body, sysId, answerFields, signal });
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
    {
      status: 404,
      responseExcerpt: error.responseExcerpt,
      instanceMessage: error.instanceMessage,
      cause: error.cause,
    },
  );
}
