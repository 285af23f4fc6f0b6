/**
 * Which property definitions apply to a connector config: the fixed sets for its type plus the dynamic
 * ones its own values call for (one `svc.table.<alias>.*` set per alias, one `svc.sink.topic.<topic>.table`
 * per mapped topic).
 */
import type { PropertyDef } from "./def.ts";
import type { ConnectorType } from "./connector_class.ts";
import type { RawConfig } from "../common/props.ts";
import { splitList } from "./coerce.ts";
import { CONNECTION_DEFS } from "./defs/connection.ts";
import { SOURCE_DEFS } from "./defs/source.ts";
import { tableDefs } from "./defs/table.ts";
import { SINK_DEFS, SINK_TOPIC_PREFIX, sinkTopicTableDef } from "./defs/sink.ts";
import {
  COMMON_DEFS,
  ERROR_DEFS,
  PREDICATE_DEFS,
  SINK_FRAMEWORK_DEFS,
  SOURCE_FRAMEWORK_DEFS,
  TRANSFORM_DEFS,
} from "./defs/framework.ts";
import { IDENTIFIER } from "./validators.ts";

/** The definitions every connector of a type has, before dynamic per-alias or per-topic keys. */
export function staticDefs(type: ConnectorType): PropertyDef[] {
  const framework = type === "source" ? SOURCE_FRAMEWORK_DEFS : SINK_FRAMEWORK_DEFS;
  const own = type === "source" ? SOURCE_DEFS : SINK_DEFS;
  return [
    ...COMMON_DEFS,
    ...framework,
    ...TRANSFORM_DEFS,
    ...PREDICATE_DEFS,
    ...ERROR_DEFS,
    ...CONNECTION_DEFS,
    ...own,
  ];
}

/** Aliases from `svc.tables` that are usable as key segments (bad ones are reported by svc.tables' validator). */
export function aliasesOf(raw: RawConfig): string[] {
  const value = raw["svc.tables"];
  if (value === undefined) return [];
  return [...new Set(splitList(value).filter((a) => IDENTIFIER.test(a)))];
}

/** Every definition that applies to this raw config, in documentation order, without duplicates. */
export function definitionsFor(type: ConnectorType, raw: RawConfig): PropertyDef[] {
  const defs = staticDefs(type);
  if (type === "source") {
    for (const alias of aliasesOf(raw)) defs.push(...tableDefs(alias));
  } else {
    const topics = new Set<string>();
    if (raw["svc.sink.routing.mode"]?.trim() === "topic_map") {
      for (const t of splitList(raw["topics"] ?? "")) topics.add(t);
    }
    for (const key of Object.keys(raw)) {
      if (key.startsWith(SINK_TOPIC_PREFIX) && key.endsWith(".table")) {
        topics.add(key.slice(SINK_TOPIC_PREFIX.length, -".table".length));
      }
    }
    for (const topic of topics) if (topic !== "") defs.push(sinkTopicTableDef(topic));
  }
  return defs;
}
