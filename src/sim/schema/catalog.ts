/**
 * The tables the simulator knows: sys_user, sys_user_group, cmdb_ci, task with its children incident and
 * problem, the dictionary tables sys_db_object and sys_dictionary, and one database view (incident_caller).
 * Field sets follow the instance's incident (≈85 fields including inherited task fields).
 */
import { field, type FieldDef, type TableSchema } from "./fields.ts";

const SYSTEM_FIELDS: FieldDef[] = [
  field("sys_id", "GUID", { label: "Sys ID", unique: true, readOnly: true }),
  field("sys_created_on", "glide_date_time", { label: "Created", readOnly: true }),
  field("sys_created_by", "string", { label: "Created by", maxLength: 40, readOnly: true }),
  field("sys_updated_on", "glide_date_time", { label: "Updated", readOnly: true }),
  field("sys_updated_by", "string", { label: "Updated by", maxLength: 40, readOnly: true }),
  field("sys_mod_count", "integer", { label: "Updates", readOnly: true }),
];

const PRIORITY: Array<[string, string]> = [
  ["1", "1 - Critical"],
  ["2", "2 - High"],
  ["3", "3 - Moderate"],
  ["4", "4 - Low"],
  ["5", "5 - Planning"],
];
const IMPACT: Array<[string, string]> = [["1", "1 - High"], ["2", "2 - Medium"], ["3", "3 - Low"]];

const TASK_FIELDS: FieldDef[] = [
  ...SYSTEM_FIELDS,
  field("sys_class_name", "sys_class_name", { label: "Task type", maxLength: 80 }),
  field("sys_domain", "reference", { label: "Domain", reference: "sys_user_group", defaultValue: "global" }),
  field("sys_domain_path", "string", { label: "Domain Path", maxLength: 255, defaultValue: "/" }),
  field("sys_tags", "string", { label: "Tags" }),
  field("number", "string", { maxLength: 40, unique: true }),
  field("short_description", "string", { maxLength: 160 }),
  field("description", "string", { maxLength: 4000 }),
  field("active", "boolean", { defaultValue: "true" }),
  field("state", "integer", {
    choices: [["1", "New"], ["2", "In Progress"], ["3", "On Hold"], ["6", "Resolved"], ["7", "Closed"], [
      "8",
      "Canceled",
    ]],
    defaultValue: "1",
  }),
  field("priority", "integer", { choices: PRIORITY, defaultValue: "5" }),
  field("impact", "integer", { choices: IMPACT, defaultValue: "3" }),
  field("urgency", "integer", { choices: IMPACT, defaultValue: "3" }),
  field("escalation", "integer", {
    choices: [["0", "Normal"], ["1", "Moderate"], ["2", "High"], ["3", "Overdue"]],
    defaultValue: "0",
  }),
  field("approval", "string", {
    maxLength: 40,
    choices: [["not requested", "Not Yet Requested"], ["requested", "Requested"], ["approved", "Approved"], [
      "rejected",
      "Rejected",
    ]],
    defaultValue: "not requested",
  }),
  field("contact_type", "string", {
    maxLength: 40,
    choices: [["email", "Email"], ["phone", "Phone"], ["self-service", "Self-service"], [
      "walk-in",
      "Walk-in",
    ]],
  }),
  field("upon_approval", "string", {
    maxLength: 40,
    choices: [["proceed", "Proceed to Next Task"]],
    defaultValue: "proceed",
  }),
  field("upon_reject", "string", {
    maxLength: 40,
    choices: [["cancel", "Cancel all future Tasks"]],
    defaultValue: "cancel",
  }),
  field("assigned_to", "reference", { reference: "sys_user" }),
  field("assignment_group", "reference", { reference: "sys_user_group" }),
  field("opened_by", "reference", { reference: "sys_user" }),
  field("closed_by", "reference", { reference: "sys_user" }),
  field("cmdb_ci", "reference", { label: "Configuration item", reference: "cmdb_ci" }),
  field("business_service", "reference", { label: "Service", reference: "cmdb_ci" }),
  field("opened_at", "glide_date_time", { label: "Opened" }),
  field("closed_at", "glide_date_time", { label: "Closed" }),
  field("activity_due", "glide_date_time"),
  field("approval_set", "glide_date_time"),
  field("due_date", "glide_date_time"),
  field("expected_start", "glide_date_time"),
  field("follow_up", "glide_date_time"),
  field("sla_due", "glide_date_time", { label: "SLA due" }),
  field("work_start", "glide_date_time"),
  field("work_end", "glide_date_time"),
  field("business_duration", "glide_duration"),
  field("calendar_duration", "glide_duration"),
  field("time_worked", "string", { maxLength: 40 }),
  field("made_sla", "boolean", { label: "Made SLA", defaultValue: "true" }),
  field("knowledge", "boolean", { defaultValue: "false" }),
  field("order", "integer"),
  field("reassignment_count", "integer", { defaultValue: "0" }),
  field("close_notes", "string", { maxLength: 4000 }),
  field("correlation_id", "string", { maxLength: 100 }),
  field("correlation_display", "string", { maxLength: 100 }),
  field("additional_assignee_list", "string", { maxLength: 4000 }),
  field("group_list", "string", { maxLength: 4000 }),
  field("watch_list", "string", { maxLength: 4000 }),
  field("work_notes_list", "string", { maxLength: 4000 }),
  field("user_input", "string", { maxLength: 4000 }),
  field("delivery_plan", "string", { maxLength: 32 }),
  field("delivery_task", "string", { maxLength: 32 }),
  field("parent", "string", { maxLength: 32 }),
  field("location", "string", { maxLength: 32 }),
  field("company", "string", { maxLength: 32 }),
  field("contract", "string", { maxLength: 32 }),
  field("service_offering", "string", { maxLength: 32 }),
  field("route_reason", "integer"),
  field("task_effective_number", "string", { maxLength: 40 }),
  field("skills", "string", { maxLength: 4000 }),
  field("approval_history", "journal_input"),
  field("comments", "journal_input", { label: "Additional comments" }),
  field("work_notes", "journal_input"),
  field("comments_and_work_notes", "journal_input"),
];

const INCIDENT_FIELDS: FieldDef[] = [
  field("caller_id", "reference", { label: "Caller", reference: "sys_user" }),
  field("category", "string", {
    maxLength: 40,
    choices: [["inquiry", "Inquiry / Help"], ["software", "Software"], ["hardware", "Hardware"], [
      "network",
      "Network",
    ], ["database", "Database"]],
    defaultValue: "inquiry",
  }),
  field("subcategory", "string", { maxLength: 40 }),
  field("close_code", "string", {
    maxLength: 40,
    choices: [["Solved (Work Around)", "Solved (Work Around)"], [
      "Solved (Permanently)",
      "Solved (Permanently)",
    ], [
      "Not Solved (Not Reproducible)",
      "Not Solved (Not Reproducible)",
    ]],
  }),
  field("incident_state", "integer", {
    choices: [["1", "New"], ["2", "In Progress"], ["3", "On Hold"], ["6", "Resolved"], ["7", "Closed"], [
      "8",
      "Canceled",
    ]],
    defaultValue: "1",
  }),
  field("hold_reason", "integer", {
    choices: [["1", "Awaiting Caller"], ["3", "Awaiting Problem"], ["4", "Awaiting Vendor"]],
  }),
  field("severity", "integer", { choices: IMPACT, defaultValue: "3" }),
  field("notify", "integer", { choices: [["1", "Do Not Notify"], ["2", "Send Email"]], defaultValue: "1" }),
  field("problem_id", "reference", { label: "Problem", reference: "problem" }),
  field("parent_incident", "reference", { reference: "incident" }),
  field("caused_by", "string", { maxLength: 32 }),
  field("rfc", "string", { label: "Change Request", maxLength: 32 }),
  field("reopen_count", "integer", { defaultValue: "0" }),
  field("reopened_by", "reference", { reference: "sys_user" }),
  field("reopened_time", "glide_date_time"),
  field("resolved_at", "glide_date_time", { label: "Resolved" }),
  field("resolved_by", "reference", { reference: "sys_user" }),
  field("child_incidents", "integer", { defaultValue: "0" }),
  field("business_stc", "integer", { label: "Business resolve time" }),
  field("calendar_stc", "integer", { label: "Resolve time" }),
  field("origin_id", "string", { maxLength: 32 }),
  field("origin_table", "string", { maxLength: 80 }),
];

const PROBLEM_FIELDS: FieldDef[] = [
  field("known_error", "boolean", { defaultValue: "false" }),
  field("problem_state", "integer", {
    choices: [["101", "New"], ["102", "Assess"], ["103", "Root Cause Analysis"], ["104", "Fix in Progress"], [
      "106",
      "Resolved",
    ], ["107", "Closed"]],
    defaultValue: "101",
  }),
  field("related_incidents", "integer", { defaultValue: "0" }),
  field("workaround", "string", { maxLength: 4000 }),
  field("cause_notes", "string", { maxLength: 4000 }),
  field("fix_notes", "string", { maxLength: 4000 }),
  field("first_reported_by_task", "string", { maxLength: 32 }),
  field("resolution_code", "string", {
    maxLength: 40,
    choices: [["fix_applied", "Fix Applied"], ["risk_accepted", "Risk Accepted"], ["duplicate", "Duplicate"]],
  }),
];

const USER_FIELDS: FieldDef[] = [
  ...SYSTEM_FIELDS,
  field("user_name", "string", { label: "User ID", maxLength: 40, unique: true }),
  field("name", "string", { maxLength: 151, unique: true }),
  field("first_name", "string", { maxLength: 50 }),
  field("last_name", "string", { maxLength: 50 }),
  field("email", "string", { maxLength: 100, unique: true }),
  field("title", "string", { maxLength: 60 }),
  field("time_zone", "string", { maxLength: 40, defaultValue: "UTC" }),
  field("date_format", "string", { maxLength: 40 }),
  field("active", "boolean", { defaultValue: "true" }),
  field("manager", "reference", { reference: "sys_user" }),
  field("department", "string", { maxLength: 32 }),
];

const GROUP_FIELDS: FieldDef[] = [
  ...SYSTEM_FIELDS,
  field("name", "string", { maxLength: 80 }),
  field("description", "string", { maxLength: 1000 }),
  field("email", "string", { maxLength: 100 }),
  field("manager", "reference", { reference: "sys_user" }),
  field("active", "boolean", { defaultValue: "true" }),
  field("type", "string", { maxLength: 1024 }),
];

const CI_FIELDS: FieldDef[] = [
  ...SYSTEM_FIELDS,
  field("sys_class_name", "sys_class_name", { label: "Class", maxLength: 80, defaultValue: "cmdb_ci" }),
  field("name", "string", { maxLength: 255 }),
  field("asset_tag", "string", { maxLength: 40, unique: true }),
  field("serial_number", "string", { maxLength: 255, unique: true }),
  field("ip_address", "string", { label: "IP Address", maxLength: 255 }),
  field("manufacturer", "string", { maxLength: 32 }),
  field("operational_status", "integer", {
    choices: [["1", "Operational"], ["2", "Non-Operational"], ["3", "Repair in Progress"], ["6", "Retired"]],
    defaultValue: "1",
  }),
  field("install_status", "integer", {
    choices: [["1", "Installed"], ["3", "In Maintenance"], ["7", "Retired"]],
    defaultValue: "1",
  }),
  field("assigned_to", "reference", { reference: "sys_user" }),
  field("support_group", "reference", { reference: "sys_user_group" }),
];

const DB_OBJECT_FIELDS: FieldDef[] = [
  ...SYSTEM_FIELDS,
  field("name", "string", { maxLength: 80 }),
  field("label", "string", { maxLength: 80 }),
  field("super_class", "reference", { label: "Extends table", reference: "sys_db_object" }),
  field("is_extendable", "boolean", { label: "Extensible", defaultValue: "false" }),
  field("number_ref", "string", { maxLength: 32 }),
];

const DICTIONARY_FIELDS: FieldDef[] = [
  ...SYSTEM_FIELDS,
  field("name", "string", { label: "Table", maxLength: 80 }),
  field("element", "string", { label: "Column name", maxLength: 80 }),
  field("column_label", "string", { maxLength: 80 }),
  field("internal_type", "reference", { label: "Type", reference: "sys_glide_object" }),
  field("reference", "reference", { reference: "sys_db_object" }),
  field("max_length", "integer"),
  field("mandatory", "boolean", { defaultValue: "false" }),
  field("read_only", "boolean", { defaultValue: "false" }),
  field("active", "boolean", { defaultValue: "true" }),
  field("default_value", "string", { maxLength: 512 }),
  field("choice", "integer", {
    choices: [["0", "-- None --"], ["1", "Dropdown with -- None --"], ["3", "Dropdown without -- None --"]],
  }),
];

/** sys_audit: one row per audited change; a deletion of any table writes `fieldname=DELETED`. */
const AUDIT_FIELDS: FieldDef[] = [
  ...SYSTEM_FIELDS,
  field("tablename", "string", { label: "Table name", maxLength: 80 }),
  field("documentkey", "string", { label: "Document key", maxLength: 32 }),
  field("fieldname", "string", { label: "Field name", maxLength: 80 }),
  field("oldvalue", "string", { label: "Old value", maxLength: 8000 }),
  field("newvalue", "string", { label: "New value", maxLength: 8000 }),
  field("user", "string", { maxLength: 255 }),
  field("reason", "string", { maxLength: 255 }),
  field("record_checkpoint", "integer"),
];

/** sys_audit_delete: the deleted record itself (XML payload), for audited tables. */
const AUDIT_DELETE_FIELDS: FieldDef[] = [
  ...SYSTEM_FIELDS,
  field("tablename", "string", { label: "Table name", maxLength: 80 }),
  field("documentkey", "string", { label: "Document key", maxLength: 32 }),
  field("display_value", "string", { maxLength: 255 }),
  field("payload", "string", { maxLength: 65000 }),
];

function table(
  name: string,
  label: string,
  ownFields: FieldDef[],
  extra: Partial<
    Pick<TableSchema, "superClass" | "extendable" | "displayField" | "numberPrefix" | "audited" | "readRoles">
  > = {},
): TableSchema {
  return {
    name,
    label,
    ownFields,
    fields: [],
    superClass: extra.superClass,
    extendable: extra.extendable ?? false,
    displayField: extra.displayField ?? "name",
    numberPrefix: extra.numberPrefix,
    audited: extra.audited ?? false,
    readRoles: extra.readRoles,
  };
}

/** Roles that may read the audit tables (besides admin), as the instance's granular audit_viewer role. */
const AUDIT_READ_ROLES = ["audit_viewer"] as const;

/** A fresh catalog (schemas are mutated when fields are resolved, so each simulator gets its own). */
export function buildCatalog(): Map<string, TableSchema> {
  const tables = [
    table("sys_user", "User", USER_FIELDS),
    table("sys_user_group", "Group", GROUP_FIELDS),
    table("cmdb_ci", "Configuration Item", CI_FIELDS, { extendable: true }),
    table("task", "Task", TASK_FIELDS, {
      extendable: true,
      displayField: "number",
      numberPrefix: "TASK",
      audited: true,
    }),
    table("incident", "Incident", INCIDENT_FIELDS, {
      superClass: "task",
      displayField: "number",
      numberPrefix: "INC",
      audited: true,
    }),
    table("problem", "Problem", PROBLEM_FIELDS, {
      superClass: "task",
      displayField: "number",
      numberPrefix: "PRB",
      audited: true,
    }),
    table("sys_audit", "Audit", AUDIT_FIELDS, { displayField: "documentkey", readRoles: AUDIT_READ_ROLES }),
    table("sys_audit_delete", "Deleted Records", AUDIT_DELETE_FIELDS, {
      displayField: "display_value",
      readRoles: AUDIT_READ_ROLES,
    }),
    table("sys_db_object", "Table", DB_OBJECT_FIELDS, { displayField: "label" }),
    table("sys_dictionary", "Dictionary Entry", DICTIONARY_FIELDS, { displayField: "column_label" }),
  ];
  const byName = new Map(tables.map((t) => [t.name, t]));
  for (const t of tables) t.fields = inheritedFields(t, byName);
  return byName;
}

function inheritedFields(t: TableSchema, byName: Map<string, TableSchema>): FieldDef[] {
  const parent = t.superClass ? byName.get(t.superClass) : undefined;
  const own = t.ownFields;
  if (!parent) return own;
  const fromParent = inheritedFields(parent, byName).map((f) =>
    f.name === "sys_class_name" ? { ...f, defaultValue: t.name } : f
  );
  return [...fromParent, ...own];
}

/** A database view column: `<prefix>_<field>` of one of the joined tables. */
export interface ViewColumn {
  name: string;
  prefix: string;
  table: string;
  field: string;
}

export interface ViewSchema {
  name: string;
  label: string;
  /** The left table: one view row per row of it. */
  base: { table: string; prefix: string };
  /** Left join: `on` is the base table's reference field matched against the joined table's sys_id. */
  join: { table: string; prefix: string; on: string };
  columns: ViewColumn[];
}

/** incident left-joined to the caller's sys_user row. */
export function buildViews(): ViewSchema[] {
  const inc = [
    "sys_id",
    "number",
    "short_description",
    "state",
    "priority",
    "active",
    "caller_id",
    "assignment_group",
    "sys_created_on",
    "sys_updated_on",
    "sys_mod_count",
  ];
  const usr = ["sys_id", "user_name", "name", "email"];
  return [{
    name: "incident_caller",
    label: "Incident with caller",
    base: { table: "incident", prefix: "inc" },
    join: { table: "sys_user", prefix: "usr", on: "caller_id" },
    columns: [
      ...inc.map((f) => ({ name: `inc_${f}`, prefix: "inc", table: "incident", field: f })),
      ...usr.map((f) => ({ name: `usr_${f}`, prefix: "usr", table: "sys_user", field: f })),
    ],
  }];
}
