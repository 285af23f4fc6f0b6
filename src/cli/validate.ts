/**
 * `tablesync validate --config FILE [--json]`: checks the worker section and every connector, printing
 * Kafka Connect's ConfigInfos per connector (--json) or a readable table. Like a linter: warnings (no connectors,
 * unknown worker keys) are printed and leave the exit code 0; any error (an empty file included) makes it 1.
 */
import { type Command, wantsHelp } from "./command.ts";
import { flag, parseArgs, UsageError } from "./args.ts";
import { loadConfigFile } from "../config/load.ts";
import { ConfigError } from "../common/config_error.ts";
import { analyzeWorker, workerStrings } from "../config/worker_config.ts";
import { analyzeConnector } from "../config/connector_config.ts";
import { type ConfigInfos, configInfos } from "../config/config_infos.ts";
import { errorLines } from "../config/analyze.ts";
import { checkConfigFile } from "../config/file_checks.ts";
import { redact } from "../observability/redact.ts";
import { connectorTypeOf } from "../config/connector_class.ts";
import { describeRecordErrorHandling } from "../config/record_error_handling.ts";

const USAGE = `tablesync validate --config FILE [--json]

Checks the config file: the worker section and every connector's properties, including
cross-property rules. Placeholders (\${env:NAME}, \${file:PATH:KEY}) are resolved for the
checks but never printed resolved; passwords show as [hidden].

  --config FILE   the config file (YAML or JSON)
  --json          print {"worker": ConfigInfos, "connectors": {name: ConfigInfos}, "errors": [...],
                  "warnings": [...]} (ConfigInfos is Kafka Connect's shape; errors and warnings are the
                  file's own, beside the properties')

For each sink, a line says what happens to a record the instance refuses under its errors.tolerance
and behavior.on.api.errors (unset, behavior.on.api.errors follows errors.tolerance: all → log,
none → fail).

Warnings (printed, exit status unchanged): a file without connectors; a worker key that is
neither tablesync's nor Kafka Connect's (ignored). A near miss of a known key is an error.

Exit status: 0 when valid (with or without warnings), 1 when any property has an error or the
file is empty, 2 on usage errors.`;

export const validateCommand: Command = {
  name: "validate",
  summary: "check a config file and report every property's errors",
  usage: USAGE,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(USAGE);
      return 0;
    }
    const parsed = parseArgs(args, { values: ["config"], booleans: ["json"] });
    if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
    const path = flag(parsed, "config");
    if (!path) throw new UsageError("--config FILE is required");
    let config;
    try {
      config = await loadConfigFile(path);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      console.error(`error: ${redact(e.message)}`);
      return 1;
    }
    const worker = analyzeWorker(config.worker);
    const workerInfos = configInfos("worker", worker);
    const connectors: Record<string, ConfigInfos> = {};
    for (const entry of config.connectors) {
      const analysis = analyzeConnector(entry.config, { worker: workerStrings(worker) });
      connectors[entry.name] = configInfos(entry.config["connector.class"] ?? entry.name, analysis);
      if (!parsed.booleans.has("json")) printErrors(entry.name, errorLines(analysis));
    }
    const file = checkConfigFile(config, worker);
    const total = file.errors.length + workerInfos.error_count +
      Object.values(connectors).reduce((n, c) => n + c.error_count, 0);
    if (parsed.booleans.has("json")) {
      const doc = { worker: workerInfos, connectors, errors: file.errors, warnings: file.warnings };
      console.log(redact(JSON.stringify(doc, null, 2)));
    } else {
      for (const line of file.errors) console.error(redact(`error: ${line}`));
      printErrors("worker", errorLines(worker));
      for (const line of file.warnings) console.error(redact(`warning: ${line}`));
      for (const [name, infos] of Object.entries(connectors)) {
        printTable(name, infos);
        const sink = config.connectors.find((c) => c.name === name);
        if (sink && connectorTypeOf(sink.config["connector.class"]) === "sink") {
          const text = (key: string) => sink.config[key] || null;
          console.log(`  record errors: ${
            describeRecordErrorHandling(
              text("behavior.on.api.errors"),
              text("errors.tolerance"),
              text("errors.deadletterqueue.topic.name"),
            )
          }`);
        }
      }
      const warned = file.warnings.length === 0 ? "" : `, ${plural(file.warnings.length, "warning")}`;
      console.log(
        total === 0
          ? `${path}: valid (${plural(config.connectors.length, "connector")}${warned})`
          : `${path}: ${plural(total, "error")}${warned}`,
      );
    }
    return total === 0 ? 0 : 1;
  },
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function printErrors(scope: string, lines: string[]): void {
  for (const line of lines) console.error(redact(`error: ${scope}: ${line}`));
}

function printTable(name: string, infos: ConfigInfos): void {
  console.log(`\nconnector ${name} (${infos.name}): ${plural(infos.error_count, "error")}`);
  const rows = infos.configs.map((c) => {
    const value = c.value;
    return [value?.name ?? "", value?.value ?? "(unset)", (value?.errors ?? []).join("; ")];
  });
  const width = Math.min(60, Math.max(8, ...rows.map((r) => r[0].length)));
  const valueWidth = Math.min(40, Math.max(5, ...rows.map((r) => r[1].length)));
  console.log(`  ${"PROPERTY".padEnd(width)}  ${"VALUE".padEnd(valueWidth)}  ERRORS`);
  for (const [prop, value, errors] of rows) {
    const shownValue = value.length > valueWidth ? value.slice(0, valueWidth - 1) + "…" : value;
    console.log(redact(`  ${prop.padEnd(width)}  ${shownValue.padEnd(valueWidth)}  ${errors}`.trimEnd()));
  }
}
