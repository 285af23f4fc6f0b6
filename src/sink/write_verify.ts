/**
 * Verified writes (`svc.sink.verify.writes`, on by default): a create or update asks the instance to answer
 * with the fields it sent (`sysparm_fields`) and compares them, after the instance's normalisation
 * (stored_value.ts), with what was sent. A field-level write ACL, a read-only field or a business rule that
 * resets a value answers 200 and keeps the old value; without this check the record would count as written.
 * A field that did not take makes the record a `not_written` record error naming table, sys id and fields.
 *
 * Not compared: fields in `svc.sink.verify.ignore.fields` (not even asked back), journal fields (write-only:
 * they read back empty), fields the answer leaves out (a field the caller cannot read, or one the table lacks
 * under `unknown.field.behavior=passthrough`). A field in `svc.sink.verify.rewritten.fields` is asked back and
 * a difference is counted and logged at debug, not an error: business rules set it on purpose.
 */
import type { TableRow } from "../instance/mod.ts";
import { SinkRecordError } from "./record_error.ts";
import { sameStoredValue, storedText } from "./stored_value.ts";

export interface VerifySettings {
  enabled: boolean;
  /** Fields business rules legitimately rewrite: compared, a difference only counted. */
  rewritten: ReadonlySet<string>;
  /** Fields never asked back nor compared. */
  ignored: ReadonlySet<string>;
}

/** Write-only types: the Table API reads them back empty. */
const WRITE_ONLY_TYPES = new Set(["journal_input", "journal", "journal_list", "password", "password2"]);
/** The base system's journal fields, for when the dictionary cannot be read. */
const JOURNAL_FIELDS = new Set(["comments", "work_notes", "comments_and_work_notes", "approval_history"]);

export interface VerifyOutcome {
  /** Fields whose value did not take. */
  notWritten: string[];
  /** Fields in `rewritten` that the instance changed. */
  rewritten: string[];
}

export class WriteVerifier {
  constructor(readonly settings: VerifySettings) {}

  /** `sysparm_fields` for a write of `body`: the sys id, and the fields to compare when verifying. */
  answerFields(body: Record<string, string>): string[] {
    if (!this.settings.enabled) return ["sys_id"];
    return ["sys_id", ...Object.keys(body).filter((f) => f !== "sys_id" && !this.settings.ignored.has(f))];
  }

  /** Compares the answer with what was sent; `types` maps field names to dictionary types when known. */
  compare(
    body: Record<string, string>,
    row: TableRow,
    types: ReadonlyMap<string, string> | null,
  ): VerifyOutcome {
    const outcome: VerifyOutcome = { notWritten: [], rewritten: [] };
    if (!this.settings.enabled) return outcome;
    for (const [field, sent] of Object.entries(body)) {
      if (field === "sys_id" || this.settings.ignored.has(field)) continue;
      const type = types?.get(field);
      if (type !== undefined ? WRITE_ONLY_TYPES.has(type) : JOURNAL_FIELDS.has(field)) continue;
      const stored = storedText(row[field]);
      if (stored === undefined || sameStoredValue(sent, stored, type)) continue;
      (this.settings.rewritten.has(field) ? outcome.rewritten : outcome.notWritten).push(field);
    }
    return outcome;
  }
}

/** The record error for fields that did not take: names table, sys id and fields, never their values. */
export function notWrittenError(
  table: string,
  sysId: string | null,
  fields: readonly string[],
): SinkRecordError {
  return new SinkRecordError(
    "not_written",
    `not_written: ${fields.join(", ")} (table "${table}", sys_id ${
      sysId ?? "unknown"
    }): the instance answered ` +
      `success but kept other values (a field write ACL, a read-only field or a business rule); list fields ` +
      `rules set on purpose in svc.sink.verify.rewritten.fields`,
    { status: 200 },
  );
}
