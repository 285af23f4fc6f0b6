/** `tablesync schema`: prints the JSON Schema of the config file (also committed as docs/tablesync.schema.json). */
import { type Command, wantsHelp } from "./command.ts";
import { parseArgs, UsageError } from "./args.ts";
import { renderConfigFileSchema } from "../config/json_schema.ts";

const USAGE = `tablesync schema

Prints a JSON Schema (draft-07) of the config file, generated from the property definitions:
types, valid values, ranges, defaults and descriptions, with the per-table (svc.table.<alias>.*)
and per-topic keys as patterns. Point an editor at it for completion and checks, for example
with a first line '# yaml-language-server: $schema=tablesync.schema.json'.
Cross-property rules are checked by 'tablesync validate'.`;

export const schemaCommand: Command = {
  name: "schema",
  summary: "print the JSON Schema of the config file (for editors)",
  usage: USAGE,
  run(args) {
    if (wantsHelp(args)) {
      console.log(USAGE);
      return Promise.resolve(0);
    }
    const parsed = parseArgs(args, {});
    if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
    console.log(renderConfigFileSchema().trimEnd());
    return Promise.resolve(0);
  },
};
