/**
 * The connector half of the source (main thread): splits the tables of `svc.tables` over at most `tasks.max`
 * tasks by balanced rendezvous hashing (assignment.ts). Each task config is the connector config with `svc.tables`
 * narrowed to the task's aliases and the other aliases' `svc.table.<alias>.*` keys removed (a task config is
 * validated like a connector config, and keys of unlisted aliases are errors there).
 *
 * The runtime imports `tableSourceConnector`.
 */
import type { ConnectorPlugin } from "../connect/task_api.ts";
import { SOURCE_CLASS } from "../config/connector_class.ts";
import { aliasOfKey } from "../config/defs/table.ts";
import type { RawConfig, TypedProps } from "../common/props.ts";
import { assignTables } from "./assignment.ts";
import { queryFingerprint } from "./partition.ts";
import { aliasesFromProps, tableSettingsFromProps } from "./settings.ts";
import { sourceOffsetProblem } from "./offset_check.ts";

/** What identifies a table for assignment: its partition identity without the instance (the same for all). */
function tableIdentity(props: TypedProps, alias: string): string {
  const t = tableSettingsFromProps(props, alias);
  return `${t.table}\u0000${queryFingerprint(t)}`;
}

/** The task config of a group of aliases. */
export function taskConfigFor(config: RawConfig, aliases: readonly string[]): RawConfig {
  const keep = new Set(aliases);
  const out: RawConfig = {};
  for (const [key, value] of Object.entries(config)) {
    const alias = aliasOfKey(key);
    if (alias !== undefined && !keep.has(alias)) continue;
    out[key] = value;
  }
  out["svc.tables"] = aliases.join(",");
  return out;
}

export const tableSourceConnector: ConnectorPlugin = {
  kind: "source",
  className: SOURCE_CLASS,
  taskConfigs(config: RawConfig, props: TypedProps, maxTasks: number): RawConfig[] {
    const tables = aliasesFromProps(props).map((alias) => ({ alias, identity: tableIdentity(props, alias) }));
    return assignTables(tables, maxTasks).map((aliases) => taskConfigFor(config, aliases));
  },
  offsetProblem: sourceOffsetProblem,
};
