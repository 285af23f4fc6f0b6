/**
 * Analysis of one connector config: placeholders resolved, typed values with defaults, per-property errors
 * from single-property checks and cross-field rules. This is what `validate`, the REST validate endpoint
 * and the herder (before starting a connector) all use.
 */
import { addError, type Analysis, analyze } from "./analyze.ts";
import { definitionsFor } from "./catalog.ts";
import { type ConnectorType, connectorTypeOf, KNOWN_CLASS_NAMES } from "./connector_class.ts";
import { COMMON_DEFS, PASS_THROUGH_PREFIXES } from "./defs/framework.ts";
import { REPORTER_PRODUCER_PREFIX } from "./defs/sink.ts";
import { type PlaceholderEnv, registerResolvedSecrets, resolveConfig } from "./placeholders.ts";
import { applyConnectorRules } from "./connector_rules.ts";
import type { ConverterContext } from "./rules.ts";
import type { RawConfig } from "../common/props.ts";

export interface ConnectorAnalysis extends Analysis {
  /** undefined when connector.class is missing or unknown. */
  type?: ConnectorType;
}

export interface AnalyzeConnectorOptions extends ConverterContext {
  placeholderEnv?: PlaceholderEnv;
}

export function analyzeConnector(raw: RawConfig, options: AnalyzeConnectorOptions): ConnectorAnalysis {
  const { resolved, errors: placeholderErrors, fromPlaceholders } = resolveConfig(
    raw,
    options.placeholderEnv,
  );
  const type = connectorTypeOf(resolved["connector.class"]);
  let analysis: ConnectorAnalysis;
  if (type === undefined) {
    analysis = analyze([...COMMON_DEFS], resolved, {
      passThroughPrefixes: ["svc.", ...PASS_THROUGH_PREFIXES],
    });
    const cls = resolved["connector.class"];
    if (cls !== undefined) {
      analysis.errors.delete("connector.class");
      addError(
        analysis,
        "connector.class",
        `Invalid value ${cls} for configuration connector.class: Connector class ${cls} not found; known classes: ${
          KNOWN_CLASS_NAMES.join(", ")
        }`,
      );
    }
  } else {
    analysis = analyze(definitionsFor(type, resolved), resolved, {
      passThroughPrefixes: [...PASS_THROUGH_PREFIXES, ...(type === "sink" ? [REPORTER_PRODUCER_PREFIX] : [])],
      strictPrefixes: ["svc."],
    });
    analysis.type = type;
    applyConnectorRules(analysis, type, options);
  }
  registerResolvedSecrets(analysis.defs, fromPlaceholders);
  for (const [key, message] of placeholderErrors) addError(analysis, key, message);
  analysis.original = raw;
  return analysis;
}
