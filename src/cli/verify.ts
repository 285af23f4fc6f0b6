/**
 * `tablesync verify --config FILE [--connector N] [--table ALIAS]`: is every row of every table in its topic at
 * its latest version? Compares each source table with its topic's latest state (src/daemon/table_verify.ts)
 * without writing anything, prints per table the rows in the instance and in the topic and what is missing,
 * stale and extra, and exits 0 when every table is equal, 1 when not: for cron and CI.
 */
import { type Command, wantsHelp } from "./command.ts";
import { flag, parseArgs, UsageError } from "./args.ts";
import { loadConfigFile } from "../config/load.ts";
import { ConfigError } from "../common/config_error.ts";
import { connectorTypeOf } from "../config/connector_class.ts";
import { redact } from "../observability/redact.ts";
import { type TableVerdict, verifyConnector } from "../daemon/table_verify.ts";

const USAGE = `tablesync verify --config FILE [--connector N] [--table ALIAS]

Compares every table of the file's source connectors with its topic, writing nothing: reads the
topic to its end with the connector's converters (latest value per key) and the table in sys_id
order, then prints per table the rows in the instance, the rows in the topic's latest state, and
the rows that are missing (absent, or tombstoned), stale (another sys_updated_on, sys_mod_count
or field value: silent updates show here) and extra (in the topic, gone from the table).

  --config FILE     the daemon's config file (YAML or JSON)
  --connector N     only this connector
  --table ALIAS     only this table alias (svc.tables)

Exit status: 0 when every table equals its topic, 1 when any differs or cannot be compared,
2 on usage errors.`;

/** How many sys_ids of each kind are listed. */
const LISTED = 10;

function report(v: TableVerdict): string {
  const lines = [
    `${v.connector} ${v.alias} (${v.table} → ${v.topic}): instance ${v.instanceRows} rows, topic ${v.topicRows} rows; ` +
    `missing ${v.missing.length}, stale ${v.stale.length}, extra ${v.extra.length}` +
    (v.missing.length + v.stale.length + v.extra.length === 0 ? ": equal" : ""),
  ];
  for (const [kind, ids] of [["missing", v.missing], ["stale", v.stale], ["extra", v.extra]] as const) {
    if (ids.length === 0) continue;
    const more = ids.length > LISTED ? ` … (${ids.length - LISTED} more)` : "";
    lines.push(`  ${kind}: ${ids.slice(0, LISTED).join(" ")}${more}`);
  }
  return lines.join("\n");
}

export const verifyCommand: Command = {
  name: "verify",
  summary: "compare each source table with its topic and report what is missing, stale or extra",
  usage: USAGE,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(USAGE);
      return 0;
    }
    const parsed = parseArgs(args, { values: ["config", "connector", "table"], booleans: [] });
    if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
    const path = flag(parsed, "config");
    if (!path) throw new UsageError("--config FILE is required");
    const only = flag(parsed, "connector");
    const table = flag(parsed, "table");
    try {
      const config = await loadConfigFile(path);
      const entries = config.connectors.filter((c) =>
        (only === undefined || c.name === only) &&
        (only !== undefined || connectorTypeOf(c.config["connector.class"]) === "source")
      );
      if (entries.length === 0) {
        throw new ConfigError(`${path}: ${only ? `no connector named ${only}` : "no source connector"}`);
      }
      let equal = true;
      for (const entry of entries) {
        for (const verdict of await verifyConnector(entry.name, entry.config, config.worker, { table })) {
          console.log(report(verdict));
          equal &&= verdict.missing.length + verdict.stale.length + verdict.extra.length === 0;
        }
      }
      return equal ? 0 : 1;
    } catch (e) {
      console.error(`error: ${redact((e as Error).message)}`);
      return 1;
    }
  },
};
