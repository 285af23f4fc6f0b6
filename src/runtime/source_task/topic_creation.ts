/**
 * Source topics: KIP-158 `topic.creation.*` groups. A topic uses the first group (in `topic.creation.groups`
 * order) whose include regexes match and exclude regexes do not, otherwise `default`; partitions and
 * replication factor fall back to the default group's, and any other `topic.creation.<group>.<key>` is a
 * topic-level config.
 */
import { splitList } from "../../config/coerce.ts";
import type { CreateTopicOptions } from "../../kafka/mod.ts";

const RESERVED = new Set(["include", "exclude", "partitions", "replication.factor"]);

/** Whether the connector asks for topic creation at all (any topic.creation.* key present). */
export function topicCreationEnabled(config: Record<string, string>): boolean {
  return Object.keys(config).some((k) => k.startsWith("topic.creation.") && k !== "topic.creation.groups");
}

function groupSettings(config: Record<string, string>, group: string) {
  const prefix = `topic.creation.${group}.`;
  const configs: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) {
    if (!k.startsWith(prefix)) continue;
    const key = k.slice(prefix.length);
    if (!RESERVED.has(key)) configs[key] = v;
  }
  return {
    include: splitList(config[`${prefix}include`] ?? "").map((r) => new RegExp(`^(?:${r})$`)),
    exclude: splitList(config[`${prefix}exclude`] ?? "").map((r) => new RegExp(`^(?:${r})$`)),
    partitions: config[`${prefix}partitions`],
    replicationFactor: config[`${prefix}replication.factor`],
    configs,
  };
}

/** The creation settings for `topic`. */
export function topicCreationFor(
  config: Record<string, string>,
  topic: string,
): CreateTopicOptions & { group: string } {
  const defaults = groupSettings(config, "default");
  const groups = splitList(config["topic.creation.groups"] ?? "").filter((g) => g !== "default");
  for (const group of groups) {
    const g = groupSettings(config, group);
    if (g.include.some((r) => r.test(topic)) && !g.exclude.some((r) => r.test(topic))) {
      return {
        group,
        partitions: Number(g.partitions ?? defaults.partitions ?? -1),
        replicationFactor: Number(g.replicationFactor ?? defaults.replicationFactor ?? -1),
        configs: { ...defaults.configs, ...g.configs },
      };
    }
  }
  return {
    group: "default",
    partitions: Number(defaults.partitions ?? -1),
    replicationFactor: Number(defaults.replicationFactor ?? -1),
    configs: defaults.configs,
  };
}
