/**
 * Creating a row when a create may already have happened (`svc.sink.create.ambiguous.behavior`). A create is
 * ambiguous when the request was sent and no answer came back (a reset, a timeout): the row may or may not
 * exist, and the instance client never repeats such a POST by itself.
 *
 * - `fail_ambiguous` (default): the record is an error (`ambiguous_create`); nothing is sent twice.
 * - `retry`: the create is sent again, up to `svc.retry.max.attempts` sends with backoff; a duplicate row is
 *   possible. When every send stays unanswered, the task fails as retriable and the record is redelivered.
 * - `correlation_lookup`: before creating, the row is looked up by `svc.sink.correlation.field` (no match:
 *   create; one: update it; more: a record error), and again after an ambiguous outcome (no match: send again;
 *   one: that is our row; more: a record error).
 *
 * A create that carries a sys id (an upsert, or an update under `not.found.behavior=create`) is checked by
 * that sys id before a resend under `retry` and `correlation_lookup`: the instance refuses a second row with
 * the same sys id, so resending blindly would turn a success into an error.
 */
import { AmbiguousRequestError, condition, type TableRow } from "../instance/mod.ts";
import { backoffCeiling, fullJitter, type Sleep, sleepRejectingOnAbort } from "../common/delay.ts";
import { MappingError, SinkRecordError } from "./record_error.ts";
import type { AmbiguousCreateBehavior, ResendSettings } from "./settings.ts";
import { asRecordError, type SinkTableApi, WRITE_ANSWER_FIELDS } from "./table_api.ts";
import { isQuotaCancelled } from "./write_refusal.ts";

export interface CreateResult {
  /** `update` when correlation_lookup found the row before creating. */
  operation: "create" | "update";
  sysId: string | null;
  status: number;
  outcome: "created" | "updated";
  /** Sends beyond the first. */
  retries: number;
  /** The row as the instance answered (the `answerFields`), when it answered. */
  row?: TableRow;
}

export interface AmbiguousCreateSettings {
  behavior: AmbiguousCreateBehavior;
  correlationField: string | null;
  updateMethod: "PATCH" | "PUT";
  resend: ResendSettings;
}

export interface CreateRequest {
  table: string;
  body: Record<string, string>;
  /** The sys id the new row gets, when the record's key names one. */
  sysId: string | null;
  /** `sysparm_fields` of the answer (default: the sys id only). */
  answerFields?: readonly string[];
  signal?: AbortSignal;
}

export class RowCreator {
  constructor(
    private readonly api: SinkTableApi,
    private readonly settings: AmbiguousCreateSettings,
    private readonly sleep: Sleep = sleepRejectingOnAbort,
  ) {}

  create(request: CreateRequest): Promise<CreateResult> {
    switch (this.settings.behavior) {
      case "fail_ambiguous":
        return this.#createOnce(request);
      case "retry":
        return this.#createWithResends(request, (r) => this.#findBySysId(r));
      case "correlation_lookup":
        return this.#createWithCorrelation(request);
    }
  }

  async #createOnce(request: CreateRequest): Promise<CreateResult> {
    try {
      return await this.#post(request, 0);
    } catch (error) {
      if (error instanceof AmbiguousRequestError) {
        const quota = isQuotaCancelled(error);
        throw new SinkRecordError(
          quota ? "quota_cancelled" : "ambiguous_create",
          `${
            quota
              ? `${error.method} ${error.path}: the instance's transaction quota cancelled the create (200 with ` +
                `"Transaction cancelled: maximum execution time exceeded")`
              : error.message
          }; the row may or may not exist (svc.sink.create.ambiguous.behavior=fail_ambiguous)`,
          {
            retries: error.attempts - 1,
            instanceMessage: quota ? "Transaction cancelled: maximum execution time exceeded" : null,
            cause: error,
          },
        );
      }
      throw error;
    }
  }

  /**
   * Sends the create until it is answered, asking `landed` after each unanswered send whether the row exists
   * after all. Throws the last `AmbiguousRequestError` (retriable) when the sends run out.
   */
  async #createWithResends(
    request: CreateRequest,
    landed: (request: CreateRequest) => Promise<string | null>,
  ): Promise<CreateResult> {
    const { maxAttempts } = this.settings.resend;
    for (let send = 1;; send++) {
      try {
        return await this.#post(request, send - 1);
      } catch (error) {
        if (!(error instanceof AmbiguousRequestError)) throw error;
        const found = await landed(request);
        if (found !== null) {
          return { operation: "create", sysId: found, status: 201, outcome: "created", retries: send - 1 };
        }
        if (send >= maxAttempts) throw error;
        const { initialBackoffMs, maxBackoffMs } = this.settings.resend;
        await this.sleep(fullJitter(backoffCeiling(send, initialBackoffMs, maxBackoffMs)), request.signal);
      }
    }
  }

  async #createWithCorrelation(request: CreateRequest): Promise<CreateResult> {
    const field = this.settings.correlationField!;
    const value = request.body[field];
    if (value === undefined || value === "") {
      throw new MappingError(
        `the record has no value for the correlation field "${field}" (svc.sink.correlation.field), ` +
          `which svc.sink.create.ambiguous.behavior=correlation_lookup needs to create a row`,
      );
    }
    const existing = await this.#findByCorrelation(request, field, value);
    if (existing !== null) {
      let row: TableRow;
      try {
        row = await this.api.update(request.table, existing, request.body, this.settings.updateMethod, {
          fields: [...(request.answerFields ?? WRITE_ANSWER_FIELDS)],
          signal: request.signal,
        });
      } catch (error) {
        throw asRecordError(error);
      }
      return { operation: "update", sysId: existing, status: 200, outcome: "updated", retries: 0, row };
    }
    return await this.#createWithResends(
      request,
      async (r) => (await this.#findBySysId(r)) ?? (await this.#findByCorrelation(r, field, value)),
    );
  }

  async #post(request: CreateRequest, retries: number): Promise<CreateResult> {
    const body = request.sysId === null ? request.body : { ...request.body, sys_id: request.sysId };
    try {
      const row = await this.api.create(request.table, body, {
        fields: [...(request.answerFields ?? WRITE_ANSWER_FIELDS)],
        signal: request.signal,
      });
      const sysId = typeof row.sys_id === "string" ? row.sys_id : request.sysId;
      return { operation: "create", sysId, status: 201, outcome: "created", retries, row };
    } catch (error) {
      throw asRecordError(error, retries);
    }
  }

  /** The row's sys id when the create carried one and the row exists now; else null. */
  async #findBySysId(request: CreateRequest): Promise<string | null> {
    if (request.sysId === null) return null;
    const row = await this.api.get(request.table, request.sysId, {
      fields: ["sys_id"],
      signal: request.signal,
    });
    return row === null ? null : request.sysId;
  }

  /**
   * The one row whose correlation field holds `value`, or null; more than one is a record error. Every row that
   * comes back must hold the value: an instance drops a query term on a field it does not know and answers
   * unrelated rows, which must never be written to.
   */
  async #findByCorrelation(request: CreateRequest, field: string, value: string): Promise<string | null> {
    let query: string;
    try {
      query = condition(field, "=", value);
    } catch {
      throw new MappingError(
        `the value of correlation field "${field}" holds "^" or a line break, which an encoded query cannot express`,
      );
    }
    const { rows } = await this.api.list(request.table, {
      query,
      limit: 2,
      fields: ["sys_id", field],
      excludeReferenceLink: true,
      signal: request.signal,
    });
    // Compared as the instance compares strings (its default collation ignores case): a row that differs only
    // in case did match the term.
    if (
      rows.some((row) => typeof row[field] !== "string" || row[field].toLowerCase() !== value.toLowerCase())
    ) {
      throw new SinkRecordError(
        "invalid_field",
        `the lookup of table "${request.table}" by correlation field "${field}" (svc.sink.correlation.field) ` +
          `answered rows that do not hold the value: the instance ignores a query on a field the table lacks; ` +
          `nothing was written`,
      );
    }
    if (rows.length > 1) {
      throw new SinkRecordError(
        "correlation_ambiguous",
        `more than one row of table "${request.table}" has this value in correlation field "${field}"`,
      );
    }
    const sysId = rows[0]?.sys_id;
    return typeof sysId === "string" && sysId !== "" ? sysId : null;
  }
}
