/**
 * How a real instance refuses or bends a write, so that a client that reads only the status code is caught out:
 * - `abort`: a before business rule calls `setAbortAction(true)` when the record matches a condition: 403
 *   `Operation against file '<table>' was aborted by Business Rule '<name>^<sys_id>'`, nothing written;
 * - `data_policy`: fields a data policy makes mandatory (when its condition matches) must end up non-empty:
 *   403 `Data Policy Exception: The following fields are mandatory: <labels>`, nothing written;
 * - `acl_deny`: a record-level write ACL the caller fails (when its condition matches): 403 `ACL Exception
 *   Insert|Update Failed due to security constraints`, nothing written;
 * - `write_acl`: a field-level write ACL the caller fails: 200, the field keeps its old value;
 * - `rewrite`: a business rule sets a field to its own value after the caller's: 200, the rule's value stored;
 * - `quota_cancel`: the transaction quota cancels the write: 200 with the error object, nothing written.
 *
 * A condition (`when`) matches the values the record would have after the write: `field=value` pairs, all
 * of them. Rules are checked in the order added; the first refusal wins.
 */
import { errorBody, Errors } from "./http/responses.ts";
import type { TableStore } from "./store/table_store.ts";

/** Field → value pairs the written record must all have for the rule to fire; absent: every write. */
export type WriteCondition = Record<string, string>;

export type WriteRule =
  | { kind: "abort"; table: string; name: string; sysId?: string; when?: WriteCondition }
  | { kind: "data_policy"; table: string; mandatory: string[]; when?: WriteCondition }
  | { kind: "acl_deny"; table: string; when?: WriteCondition }
  | { kind: "write_acl"; table: string; fields: string[] }
  | { kind: "rewrite"; table: string; field: string; value: string; when?: WriteCondition }
  | { kind: "quota_cancel"; table: string; when?: WriteCondition };

/** The operation a rule may limit itself to; absent: inserts and updates. */
export type WriteOperation = "insert" | "update";

export type InstalledWriteRule = WriteRule & { operation?: WriteOperation };

/** What the rules make of one write. */
export type WriteVerdict =
  | { refused: { status: number; body: string } }
  | { refused?: undefined; values: Record<string, string> };

export class WriteRuleRegistry {
  #rules: Array<{ id: string; rule: InstalledWriteRule }> = [];
  #next = 1;

  add(rule: InstalledWriteRule): string {
    const id = `write-rule-${this.#next++}`;
    this.#rules.push({ id, rule });
    return id;
  }

  remove(id: string): boolean {
    const before = this.#rules.length;
    this.#rules = this.#rules.filter((r) => r.id !== id);
    return this.#rules.length !== before;
  }

  clear(): void {
    this.#rules = [];
  }

  list(): Array<{ id: string; rule: InstalledWriteRule }> {
    return [...this.#rules];
  }

  /** The refusal of a write, or the values to store (write ACLs and rewrites applied). */
  judge(
    store: TableStore,
    operation: WriteOperation,
    values: Record<string, string>,
    row?: number,
  ): WriteVerdict {
    const after = (name: string) =>
      values[name] ??
        (row === undefined ? store.field(name)?.defaultValue ?? "" : store.reader(name)?.get(row) ?? "");
    const matches = (when?: WriteCondition) =>
      Object.entries(when ?? {}).every(([field, value]) => after(field) === value);
    let out = values;
    for (const { rule } of this.#rules) {
      if (rule.table !== store.name || (rule.operation && rule.operation !== operation)) continue;
      switch (rule.kind) {
        case "abort":
          if (matches(rule.when)) return { refused: abortRefusal(store.name, rule.name, rule.sysId) };
          break;
        case "data_policy": {
          if (!matches(rule.when)) break;
          const missing = rule.mandatory.filter((f) => after(f).trim() === "");
          if (missing.length > 0) {
            return { refused: dataPolicyRefusal(missing.map((f) => store.field(f)?.label ?? f)) };
          }
          break;
        }
        case "acl_deny":
          if (matches(rule.when)) {
            const verb = operation === "insert" ? "Insert" : "Update";
            return {
              refused: {
                status: 403,
                body: errorBody(
                  "Operation Failed",
                  `ACL Exception ${verb} Failed due to security constraints`,
                ),
              },
            };
          }
          break;
        case "write_acl":
          out = Object.fromEntries(Object.entries(out).filter(([k]) => !rule.fields.includes(k)));
          break;
        case "rewrite":
          if (matches(rule.when)) out = { ...out, [rule.field]: rule.value };
          break;
        case "quota_cancel":
          if (matches(rule.when)) {
            return { refused: { status: 200, body: errorBody(...Errors.quotaCancelled) } };
          }
          break;
      }
    }
    return { values: out };
  }
}

function abortRefusal(table: string, name: string, sysId?: string): { status: number; body: string } {
  const id = sysId ?? "0c8e4b9a1b0330103a5b7c1bdc4bcb7f";
  return {
    status: 403,
    body: errorBody(
      "Operation Failed",
      `Operation against file '${table}' was aborted by Business Rule '${name}^${id}'. Business Rule Stack:${name}`,
    ),
  };
}

function dataPolicyRefusal(labels: string[]): { status: number; body: string } {
  return {
    status: 403,
    body: errorBody(
      "Operation Failed",
      `Data Policy Exception: \n\tThe following fields are mandatory: ${labels.join(", ")}`,
    ),
  };
}
