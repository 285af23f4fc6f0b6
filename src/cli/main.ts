/**
 * The CLI: `tablesync <command> [flags]`. Every command has --help; unknown commands and flags print
 * the usage and exit 2.
 */
import type { Command } from "./command.ts";
import { UsageError } from "./args.ts";
import { versionCommand } from "./version.ts";
import { validateCommand } from "./validate.ts";
import { runCommand } from "./run.ts";
import { verifyCommand } from "./verify.ts";
import { probeCommand } from "./probe.ts";
import { schemaCommand } from "./schema.ts";
import { SIMULATE_USAGE } from "./simulate_usage.ts";

const simulate: Command = {
  name: "simulate",
  summary: "run the instance simulator (a table REST API server for demos and tests)",
  usage: SIMULATE_USAGE,
  // Loaded only when run: the simulator's modules would otherwise sit in every daemon's main isolate.
  run: async (args) => (await import("./simulate.ts")).simulateCommand(args),
};

const COMMANDS: Command[] = [
  runCommand,
  validateCommand,
  probeCommand,
  schemaCommand,
  simulate,
  versionCommand,
  verifyCommand,
];

function mainUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "tablesync: keeps the tables of an instance and Kafka in sync",
    "",
    "usage: tablesync <command> [flags]",
    "",
    "commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Run 'tablesync <command> --help' for a command's flags.",
  ].join("\n");
}

export async function runCli(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(mainUsage());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version") return versionCommand.run([]);
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`tablesync: unknown command '${name}'\n\n${mainUsage()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`tablesync ${command.name}: ${e.message}\n\n${command.usage}`);
      return 2;
    }
    throw e;
  }
}
