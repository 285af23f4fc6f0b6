/**
 * Per-table source properties, `svc.table.<alias>.*`: one set for every alias listed in `svc.tables`.
 * The template is declared once; `tableDefs(alias)` instantiates it in the group "Table: <alias>".
 */
import { group, type PropertyDef } from "../def.ts";
import { dateTime, identifier, nonEmpty, range, topicName } from "../validators.ts";

export const TABLE_PREFIX = "svc.table.";
const DEFAULT_START_TIMESTAMP = "1970-01-01 00:00:00";

/** The per-table key suffixes, in documentation order. */
export function tableDefs(alias: string): PropertyDef[] {
  const table = group(`Table: ${alias}`);
  const key = (suffix: string) => `${TABLE_PREFIX}${alias}.${suffix}`;
  return [
    table(
      key("name"),
      "STRING",
      "Table or database view to poll. The source partition is keyed on this name, not the alias.",
      {
        importance: "HIGH",
        validator: identifier,
      },
    ),
    table(key("topic"), "STRING", "Destination topic.", { importance: "HIGH", validator: topicName }),
    table(
      key("start.timestamp"),
      "STRING",
      "Backfill start (UTC yyyy-MM-dd HH:mm:ss) when no offset is stored. Ignored once an offset exists.",
      {
        default: DEFAULT_START_TIMESTAMP,
        validator: dateTime,
      },
    ),
    table(
      key("timestamp.field"),
      "STRING",
      "Cursor timestamp: sys_updated_on (creates and updates) or sys_created_on (creates only); for a database view, the prefixed column such as inc_sys_updated_on.",
      {
        default: "sys_updated_on",
        validator: nonEmpty,
      },
    ),
    table(
      key("query"),
      "STRING",
      "Base encoded query ANDed with the cursor predicates. A plain filter: no ORDERBY, no offset placeholder. Changing it restarts the table from its start timestamp.",
      {
        default: "",
        width: "LONG",
      },
    ),
    table(
      key("fields"),
      "LIST",
      "Projection (sysparm_fields). Empty means every field. When set it must include the sys id field and the timestamp field; sys_mod_count is added automatically.",
      {
        default: "",
      },
    ),
    table(
      key("sys.id.field"),
      "STRING",
      "Cursor identity field and record key. Only database views change it (for example inc_sys_id).",
      {
        default: "sys_id",
        validator: nonEmpty,
      },
    ),
    table(
      key("display.value"),
      "STRING",
      "sysparm_display_value: false (raw values), true (display values; cursor fields stay raw), all (value and display_value for every field).",
      {
        default: "false",
        validValues: ["false", "true", "all"],
      },
    ),
    table(
      key("exclude.reference.link"),
      "BOOLEAN",
      "Drop the link of reference fields (sysparm_exclude_reference_link), flattening them to the sys_id string.",
      {
        default: "true",
      },
    ),
    table(
      key("query.domain"),
      "BOOLEAN",
      "true restricts to the user's domains; false sends sysparm_query_no_domain=true (needs a role allowing it). Part of the partition fingerprint.",
      {
        default: "true",
      },
    ),
    table(key("query.category"), "STRING", "sysparm_query_category.", { default: null, importance: "LOW" }),
    table(key("batch.size"), "INT", "Overrides svc.source.batch.size for this table.", {
      default: null,
      validator: range(1, 50000),
    }),
    table(key("backfill.parallelism"), "INT", "Overrides svc.source.backfill.parallelism for this table.", {
      default: null,
      validator: range(1, 64),
    }),
    table(key("poll.interval.ms"), "INT", "Overrides svc.source.poll.interval.ms for this table.", {
      default: null,
      validator: range(1),
    }),
    table(
      key("reconcile.interval.seconds"),
      "INT",
      "Overrides svc.source.reconcile.interval.seconds for this table (0 = no background reconcile passes).",
      { default: null, validator: range(0) },
    ),
    table(
      key("capture.deletes"),
      "BOOLEAN",
      "Also emit deletions: sys_audit DELETED rows of this table become tombstones keyed by sys_id (with the envelope on, an op 'd' record first); RECOVERED rows re-emit the row. Read with their own cursor and source partition. The integration user needs read access to sys_audit (role audit_viewer or admin). Not for database views.",
      {
        default: "false",
      },
    ),
  ];
}

/** The alias of a `svc.table.<alias>.<suffix>` key, or undefined. */
export function aliasOfKey(key: string): string | undefined {
  if (!key.startsWith(TABLE_PREFIX)) return undefined;
  const rest = key.slice(TABLE_PREFIX.length);
  const dot = rest.indexOf(".");
  return dot > 0 ? rest.slice(0, dot) : undefined;
}
