/** The consumer group of a sink connector: Kafka Connect's `connect-<name>`, unless `consumer.override.group.id`. */
import type { RawConfig } from "../common/props.ts";

function sinkGroup(name: string): string {
  return `connect-${name}`;
}

export function sinkGroupOf(config: RawConfig): string {
  return config["consumer.override.group.id"] ?? sinkGroup(config["name"]);
}
