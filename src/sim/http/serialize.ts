/**
 * Rows to JSON, with the display-value matrix of the Table API:
 *
 * | sysparm_display_value | reference, links on                          | reference, exclude_reference_link | other fields            |
 * |-----------------------|----------------------------------------------|-----------------------------------|-------------------------|
 * | false (default)       | {"link":L,"value":V}                         | "V"                               | "V"                     |
 * | true                  | {"display_value":D,"link":L}                 | "D"                               | "D"                     |
 * | all                   | {"display_value":D,"link":L,"value":V}       | {"display_value":D,"value":V}     | {"display_value":D,"value":V} |
 *
 * An empty reference is "" (never an object with a link). All raw values are strings. The JSON text is
 * built by hand because this is the hot path of every list response.
 */
import { formatDisplayDate, formatDisplayDateTime, formatDuration } from "../glide_time.ts";
import type { FieldDef } from "../schema/fields.ts";
import type { Database } from "../store/database.ts";
import type { ColumnReader, RowSource } from "../store/row_source.ts";

export type DisplayMode = "false" | "true" | "all";

export interface Viewer {
  timeZone: string;
  dateFormat: string;
}

export interface RenderOptions {
  display: DisplayMode;
  excludeReferenceLink: boolean;
  /** Names from sysparm_fields (unknown ones are ignored); undefined = all fields. */
  fields?: string[];
  /** Prefix of reference links, e.g. "https://host/api/now/table/" (with the version when one was used). */
  linkBase: string;
  viewer: Viewer;
}

interface FieldPlan {
  key: string;
  render: (row: number) => string;
}

const q = JSON.stringify;
const groupDigits = new Intl.NumberFormat("en-US");

/** Parses sysparm_fields: comma list, blanks dropped, duplicates removed. */
export function parseFieldList(text: string | null): string[] | undefined {
  if (text === null) return undefined;
  const names = [...new Set(text.split(",").map((f) => f.trim()).filter((f) => f !== ""))];
  return names.length ? names : undefined;
}

export class RowRenderer {
  #plans: FieldPlan[] = [];

  constructor(db: Database, source: RowSource, options: RenderOptions) {
    const names = options.fields ?? source.fieldNames;
    for (const name of names) {
      const reader = db.reader(source, name);
      if (!reader) continue; // unknown names in sysparm_fields are ignored
      this.#plans.push({ key: q(name) + ":", render: renderer(db, reader, options) });
    }
  }

  /** One row as a JSON object text. */
  render(row: number): string {
    let out = "{";
    const plans = this.#plans;
    for (let i = 0; i < plans.length; i++) {
      if (i > 0) out += ",";
      out += plans[i].key + plans[i].render(row);
    }
    return out + "}";
  }
}

function renderer(db: Database, reader: ColumnReader, options: RenderOptions): (row: number) => string {
  const def = reader.def;
  const get = reader.get;
  const isReference = def.type === "reference";
  const display = displayValue(db, reader, options.viewer);
  const link = (value: string) => q(`${options.linkBase}${def.reference}/${value}`);
  const withLink = isReference && !options.excludeReferenceLink;
  switch (options.display) {
    case "false":
      if (!withLink) return reader.json ?? ((row) => q(get(row)));
      return (row) => {
        const v = get(row);
        return v === "" ? '""' : `{"link":${link(v)},"value":${q(v)}}`;
      };
    case "true":
      if (!withLink) return (row) => q(display(row));
      return (row) => {
        const v = get(row);
        return v === "" ? '""' : `{"display_value":${q(display(row))},"link":${link(v)}}`;
      };
    case "all":
      return (row) => {
        const v = get(row);
        if (withLink && v !== "") {
          return `{"display_value":${q(display(row))},"link":${link(v)},"value":${q(v)}}`;
        }
        return `{"display_value":${q(display(row))},"value":${q(v)}}`;
      };
  }
}

/** The display value of a field for a viewer (time zone and date format). */
function displayValue(db: Database, reader: ColumnReader, viewer: Viewer): (row: number) => string {
  const def: FieldDef = reader.def;
  const get = reader.get;
  if (def.choices) {
    const labels = new Map(def.choices);
    return (row) => {
      const v = get(row);
      return labels.get(v) ?? v;
    };
  }
  const secs = reader.seconds;
  switch (def.type) {
    case "reference":
      return (row) => db.referenceDisplay(def, get(row));
    case "glide_date_time":
      return secs ? (row) => formatDisplayDateTime(secs(row), viewer.timeZone, viewer.dateFormat) : get;
    case "glide_date":
      return secs ? (row) => formatDisplayDate(secs(row), "UTC", viewer.dateFormat) : get;
    case "glide_duration":
      return secs ? (row) => (Number.isNaN(secs(row)) ? "" : formatDuration(secs(row))) : get;
    case "integer":
      return (row) => {
        const v = get(row);
        const n = Number(v);
        return v === "" || !Number.isFinite(n) ? v : groupDigits.format(n);
      };
    case "sys_class_name":
      return (row) => {
        const v = get(row);
        return db.catalog.get(v)?.label ?? v;
      };
    default:
      return get;
  }
}
