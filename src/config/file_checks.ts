/**
 * What `validate` reports and `run` applies about a config file as a whole, beside each property's own errors:
 * an empty file is an error (most likely the wrong file, or one not written yet); a file without connectors is a
 * warning (a daemon may start with none and get them over the REST API); so are the worker section's warnings
 * (keys neither tablesync nor Kafka Connect knows).
 */
import type { DaemonConfig } from "./load.ts";
import { type Analysis, warningLines } from "./analyze.ts";

export interface FileFindings {
  errors: string[];
  warnings: string[];
}

export function checkConfigFile(config: DaemonConfig, worker: Analysis): FileFindings {
  const errors: string[] = [];
  const warnings = warningLines(worker).map((line) => `worker: ${line}`);
  const noWorkerSettings = Object.keys(config.worker).length === 0;
  if (config.connectors.length === 0 && noWorkerSettings) {
    errors.push(`${config.path} is empty: no 'worker' settings and no 'connectors'`);
  } else if (config.connectors.length === 0) {
    warnings.push(
      `${config.path} has no connectors: the daemon starts with none (add them under 'connectors', or later ` +
        `over the REST API)`,
    );
  }
  return { errors, warnings };
}
