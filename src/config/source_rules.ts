/** Cross-field rules of the source connector: tables, cursors, schema modes, converters, topic creation. */
import { addError, type Analysis } from "./analyze.ts";
import { aliasesOf } from "./catalog.ts";
import { TABLE_PREFIX } from "./defs/table.ts";
import { JSON_CONVERTER } from "./worker.ts";
import { applyExactlyOnceRules } from "./exactly_once_rules.ts";
import {
  type ConverterContext,
  effectiveValueConverter,
  list,
  REGISTRY_CONVERTERS,
  str,
  TYPED_FIELD,
  TYPED_FIELD_TYPES,
} from "./rules.ts";

const DECIMAL_WITH_SCALE = /^decimal\((\d+)\)$/;
/** A cursor timestamp field: sys_updated_on or sys_created_on, or a database view's prefixed column. */
const CURSOR_TIMESTAMP = /^(?:[a-z][a-z0-9]*_)?sys_(?:updated|created)_on$/;
/** Placeholders for paging offsets that other connectors substitute into their queries. */
const OFFSET_PLACEHOLDER = /\$\{[^}]*\}|\{\{[^}]*\}\}|\{offset\}|sysparm_offset/i;

export function applySourceRules(a: Analysis, ctx: ConverterContext): void {
  const rawAliases = list(a, "svc.tables");
  if (a.values["svc.tables"] !== null && rawAliases.length === 0) {
    addError(a, "svc.tables", "svc.tables must list at least one alias");
  }
  const seen = new Set<string>();
  for (const alias of rawAliases) {
    if (seen.has(alias)) addError(a, "svc.tables", `alias '${alias}' is listed more than once in svc.tables`);
    seen.add(alias);
  }

  const aliases = aliasesOf(a.raw);
  const identities = new Map<string, string>();
  for (const alias of aliases) {
    const k = (suffix: string) => `${TABLE_PREFIX}${alias}.${suffix}`;
    const tsField = str(a, k("timestamp.field")) ?? "";
    const idField = str(a, k("sys.id.field")) ?? "";
    if (tsField !== "" && !CURSOR_TIMESTAMP.test(tsField)) {
      addError(
        a,
        k("timestamp.field"),
        `Invalid value ${tsField} for configuration ${
          k("timestamp.field")
        }: the cursor timestamp must be sys_updated_on or sys_created_on, or a database view's prefixed column such as inc_sys_updated_on`,
      );
    }
    if (a.values[k("capture.deletes")] === true && idField !== "" && idField !== "sys_id") {
      addError(
        a,
        k("capture.deletes"),
        `${
          k("capture.deletes")
        }=true needs a table keyed by sys_id: the instance audits deletions of tables, ` +
          `not of database views (${k("sys.id.field")} is ${idField})`,
      );
    }
    const fields = list(a, k("fields"));
    if (fields.length > 0) {
      for (const required of [idField, tsField]) {
        if (required !== "" && !fields.includes(required)) {
          addError(
            a,
            k("fields"),
            `${k("fields")} must include the sys id field and the timestamp field: '${required}' is missing`,
          );
        }
      }
    }
    const query = str(a, k("query")) ?? "";
    if (/ORDERBY/i.test(query)) {
      addError(
        a,
        k("query"),
        `${
          k("query")
        } must be a plain filter without ORDERBY: the connector orders by its cursor fields itself`,
      );
    }
    if (OFFSET_PLACEHOLDER.test(query)) {
      addError(
        a,
        k("query"),
        `${k("query")} must not contain an offset placeholder: paging is by keyset cursor`,
      );
    }
    const table = str(a, k("name"));
    if (table) {
      // The same parts, trimmed the same way, as the source partition's fingerprint (src/source/partition.ts).
      const identity = [
        table,
        query.trim(),
        str(a, k("query.domain")),
        str(a, k("timestamp.field"))?.trim(),
        str(a, k("sys.id.field"))?.trim(),
      ].join("\u0000");
      const other = identities.get(identity);
      if (other) {
        addError(
          a,
          k("name"),
          `aliases '${other}' and '${alias}' poll table ${table} with the same query, query.domain and cursor ` +
            `fields; their offsets would collide`,
        );
      } else identities.set(identity, alias);
    }
  }

  // Keys of aliases that svc.tables does not list.
  const known = new Set(aliases);
  for (const key of Object.keys(a.raw)) {
    if (!key.startsWith(TABLE_PREFIX)) continue;
    const alias = key.slice(TABLE_PREFIX.length).split(".")[0];
    if (!known.has(alias)) {
      a.errors.delete(key);
      addError(a, key, `Unknown property ${key}: alias '${alias}' is not listed in svc.tables`);
    }
  }

  const mode = str(a, "svc.source.schema.mode");
  const typed = list(a, "svc.source.typed.fields");
  const typedNames = new Set<string>();
  for (const entry of typed) {
    const m = TYPED_FIELD.exec(entry);
    if (!m) {
      addError(
        a,
        "svc.source.typed.fields",
        `Invalid entry '${entry}' in svc.source.typed.fields: expected field:type`,
      );
      continue;
    }
    const [, field, type] = m;
    const scale = DECIMAL_WITH_SCALE.exec(type);
    if (!scale && !(TYPED_FIELD_TYPES as readonly string[]).includes(type)) {
      addError(
        a,
        "svc.source.typed.fields",
        `Invalid type '${type}' for field ${field} in svc.source.typed.fields: allowed types are ${
          TYPED_FIELD_TYPES.join(", ")
        }, decimal(scale)`,
      );
    }
    if (typedNames.has(field)) {
      addError(
        a,
        "svc.source.typed.fields",
        `field ${field} is listed more than once in svc.source.typed.fields`,
      );
    }
    typedNames.add(field);
  }
  if (mode === "typed" && typed.length === 0) {
    addError(
      a,
      "svc.source.typed.fields",
      "svc.source.typed.fields is required when svc.source.schema.mode=typed",
    );
  }

  if (mode === "schemaless") {
    const { cls, schemasEnable } = effectiveValueConverter(a, ctx);
    if (cls === JSON_CONVERTER && schemasEnable) {
      addError(
        a,
        "svc.source.schema.mode",
        "schemaless values have no schema, but the JsonConverter has schemas.enable=true: set value.converter.schemas.enable=false or use svc.source.schema.mode=strings or typed",
      );
    } else if ((REGISTRY_CONVERTERS as readonly string[]).includes(cls)) {
      addError(
        a,
        "svc.source.schema.mode",
        `schemaless values have no schema, but ${cls} needs one: use svc.source.schema.mode=strings or typed`,
      );
    }
  }

  applyExactlyOnceRules(a, ctx);

  const creationKeys = Object.keys(a.raw).filter((k) => k.startsWith("topic.creation."));
  if (creationKeys.length > 0) {
    for (const key of ["topic.creation.default.replication.factor", "topic.creation.default.partitions"]) {
      const v = a.raw[key];
      if (v === undefined) {
        addError(
          a,
          key,
          `Missing required configuration "${key}" which has no default value (needed once any topic.creation.* key is set).`,
        );
      } else if (!/^-?\d+$/.test(v.trim()) || (Number(v) < 1 && Number(v) !== -1)) {
        addError(
          a,
          key,
          `Invalid value ${v} for configuration ${key}: must be -1 (broker default) or at least 1`,
        );
      }
    }
  }
}
