/**
 * Renders docs/configuration.md from the property definitions, so the reference can never drift from the
 * code: `deno task docs` writes it, and a test fails when the committed file is stale.
 */
import type { PropertyDef } from "./def.ts";
import { staticDefs } from "./catalog.ts";
import { tableDefs } from "./defs/table.ts";
import { sinkTopicTableDef } from "./defs/sink.ts";
import { WORKER_DEFS } from "./worker.ts";

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function describeValid(def: PropertyDef): string {
  if (def.validValues) return def.validValues.join(", ");
  return def.validator?.describe ?? "";
}

function defaultOf(def: PropertyDef): string {
  if (def.default === undefined) return "required";
  if (def.default === null) return "null";
  if (def.default === "") return '""';
  return `\`${def.default}\``;
}

function table(defs: readonly PropertyDef[]): string[] {
  const lines = [
    "| Property | Type | Default | Valid values | Importance | Description |",
    "|---|---|---|---|---|---|",
  ];
  for (const d of defs) {
    lines.push(
      `| \`${d.name}\` | ${d.type} | ${defaultOf(d)} | ${cell(describeValid(d))} | ${d.importance} | ${
        cell(d.documentation)
      } |`,
    );
  }
  return lines;
}

function byGroup(defs: readonly PropertyDef[]): Map<string, PropertyDef[]> {
  const out = new Map<string, PropertyDef[]>();
  for (const d of defs) out.set(d.group, [...(out.get(d.group) ?? []), d]);
  return out;
}

export function renderConfigurationDoc(): string {
  const out: string[] = [
    "# Configuration reference",
    "",
    "Generated from the property definitions in `src/config/defs/` and `src/config/worker.ts` by `deno task docs`;",
    "do not edit by hand. `tablesync validate --config FILE` checks a file against exactly these definitions.",
    "",
    "The config file has two sections: `worker` (daemon-wide settings, Kafka Connect's worker key names) and",
    "`connectors` (a list of `{name, config}`; `config` is a connector's flat property map). Values may be",
    "strings, numbers, booleans or lists of them; `${env:NAME}` and `${file:PATH:KEY}` placeholders are",
    "resolved when a connector starts; the REST API returns configs with them unresolved, and a value resolved",
    "into a PASSWORD property (or an undefined pass-through key) is hidden wherever it would appear.",
    "",
    "The same definitions as a JSON Schema, for editor completion and checks: `docs/tablesync.schema.json`",
    "(`tablesync schema` prints it; reference it with `# yaml-language-server: $schema=...` as the examples do).",
    "",
    "## Worker",
    "",
  ];
  for (const [group, defs] of byGroup(WORKER_DEFS)) out.push(`### ${group}`, "", ...table(defs), "");
  out.push(
    "Keys starting with `producer.`, `consumer.`, `admin.`, `ssl.`, `sasl.` and the converter prefixes are passed",
    "to the Kafka clients and converters unchanged.",
    "",
  );
  for (const kind of ["source", "sink"] as const) {
    out.push(
      `## ${
        kind === "source"
          ? "Source connector (`TableSourceConnector`)"
          : "Sink connector (`TableSinkConnector`)"
      }`,
      "",
    );
    for (const [group, defs] of byGroup(staticDefs(kind))) out.push(`### ${group}`, "", ...table(defs), "");
    if (kind === "source") {
      out.push(
        "### Per table: `svc.table.<alias>.*`",
        "",
        "One set for every alias listed in `svc.tables` (shown here for the alias `<alias>`).",
        "",
        ...table(tableDefs("<alias>")),
        "",
      );
    } else {
      out.push(
        "### Per topic (topic_map routing)",
        "",
        ...table([sinkTopicTableDef("<topic>")]),
        "",
        "Keys starting with `svc.sink.reporter.producer.` configure the reporter's producer.",
        "",
      );
    }
  }
  out.push(
    "## Framework keys passed through",
    "",
    "`producer.override.*`, `consumer.override.*`, `admin.override.*`, `key.converter.*`, `value.converter.*`,",
    "`header.converter.*`, `transforms.<alias>.*`, `predicates.<alias>.*` and `topic.creation.*` are accepted",
    "and applied as Kafka Connect applies them.",
    "",
  );
  return out.join("\n");
}
