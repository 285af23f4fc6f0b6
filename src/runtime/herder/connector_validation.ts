/**
 * Connector configs checked against the property definitions: the validate endpoint's answer, the 400 for an
 * invalid config sent over REST, and the plugin a config names.
 */
import type { ConnectorPlugin } from "../../connect/task_api.ts";
import type { RawConfig } from "../../common/props.ts";
import { analyzeConnector, type ConnectorAnalysis } from "../../config/connector_config.ts";
import { errorLines } from "../../config/analyze.ts";
import { type ConfigInfos, configInfos } from "../../config/config_infos.ts";
import { connectorTypeOf } from "../../config/connector_class.ts";
import { ConnectRestError } from "./connect_rest_error.ts";

/** Kafka Connect's alias matching: compare without a trailing "Connector", by suffix. */
export function sameConnectorClass(a: string, b: string): boolean {
  const strip = (s: string) => s.replace(/Connector$/, "");
  const x = strip(a);
  const y = strip(b);
  return x === y || x.endsWith(`.${y}`) || y.endsWith(`.${x}`);
}

export class ConnectorValidator {
  constructor(
    private readonly plugins: readonly ConnectorPlugin[],
    /** The worker's settings as strings after analysis (defaults applied), for config rules. */
    private readonly workerStrings: Record<string, string>,
  ) {}

  analyze(config: RawConfig): ConnectorAnalysis {
    return analyzeConnector(config, { worker: this.workerStrings });
  }

  /** The plugin of the config's connector.class, if this build has one. */
  pluginFor(config: RawConfig): ConnectorPlugin | undefined {
    const kind = connectorTypeOf(config["connector.class"]);
    return this.plugins.find((p) => p.kind === kind);
  }

  /** Kafka Connect's validate: the plugin in the path must match connector.class (trailing "Connector" ignored). */
  validate(pluginClass: string, config: RawConfig): ConfigInfos {
    const plugin = this.plugins.find((p) => sameConnectorClass(pluginClass, p.className));
    if (!plugin) {
      throw new ConnectRestError(
        404,
        `Failed to find any class that implements Connector and which name matches ${pluginClass}`,
      );
    }
    const given = config["connector.class"];
    if (given !== undefined && !sameConnectorClass(given, plugin.className)) {
      throw new ConnectRestError(
        400,
        `Included connector type ${given} does not match request type ${pluginClass}`,
      );
    }
    const analysis = this.analyze({ ...config, "connector.class": given ?? plugin.className });
    return configInfos(plugin.className, analysis);
  }

  /** Throws Connect's 400 listing every error of an invalid config. */
  checkValid(config: RawConfig): void {
    const lines = errorLines(this.analyze(config));
    if (lines.length > 0) {
      throw new ConnectRestError(
        400,
        `Connector configuration is invalid and contains the following ${lines.length} error(s):\n${
          lines.join("\n")
        }\n` +
          `You can also find the above list of errors at the endpoint \`/connector-plugins/{connectorType}/config/validate\``,
      );
    }
  }
}
