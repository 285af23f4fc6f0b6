/** Dictionary types of the simulated tables (a subset of the instance's internal types). */

export type FieldType =
  | "GUID"
  | "string"
  | "integer"
  | "boolean"
  | "glide_date_time"
  | "glide_date"
  | "glide_duration"
  | "reference"
  | "journal_input"
  | "sys_class_name";

export interface FieldDef {
  name: string;
  type: FieldType;
  label: string;
  maxLength: number;
  /** Target table of a reference field. */
  reference?: string;
  /** [value, label] pairs of a choice field. */
  choices?: ReadonlyArray<readonly [string, string]>;
  mandatory?: boolean;
  readOnly?: boolean;
  /** Value given to inserted rows that do not set the field. */
  defaultValue?: string;
  /** Values are (nearly) unique per row: stored as plain strings rather than dictionary-encoded. */
  unique?: boolean;
}

export interface TableSchema {
  name: string;
  label: string;
  /** Parent table in the class hierarchy (incident → task). */
  superClass?: string;
  extendable: boolean;
  /** Field used as the display value when another row references this table. */
  displayField: string;
  /** Prefix of generated numbers (INC, PRB, …), when the table has a number field. */
  numberPrefix?: string;
  /** Deletions write the record to sys_audit_delete (every deletion writes a sys_audit row regardless). */
  audited: boolean;
  /** When set, only admins and users with one of these roles may read the table (others get 403). */
  readRoles?: readonly string[];
  /** This table's own fields (inherited ones live on the parent). */
  ownFields: FieldDef[];
  /** All fields, inherited included, filled in by the catalog. */
  fields: FieldDef[];
}

/** Shorthand constructor used by the catalog. */
export function field(
  name: string,
  type: FieldType,
  extra: Partial<Omit<FieldDef, "name" | "type">> = {},
): FieldDef {
  const label = extra.label ?? name.split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
  const maxLength = extra.maxLength ??
    (type === "GUID" || type === "reference" ? 32 : type === "integer" ? 40 : type === "boolean" ? 40 : 100);
  return { ...extra, name, type, label, maxLength };
}
