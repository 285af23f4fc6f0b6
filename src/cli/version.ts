/**
 * `tablesync version`: prints the daemon's version (src/version.ts) and the commit it was built from
 * (src/build_commit.ts, written by `deno task compile`; `dev` when run from source), with the Deno version.
 */
import { COMMIT, VERSION } from "../version.ts";
import { type Command, wantsHelp } from "./command.ts";
import { parseArgs } from "./args.ts";

export const versionCommand: Command = {
  name: "version",
  summary: "print the version and commit",
  usage: "tablesync version\n\nPrints the daemon's version and the commit it was built from.",
  run(args) {
    if (wantsHelp(args)) {
      console.log(versionCommand.usage);
      return Promise.resolve(0);
    }
    parseArgs(args, {});
    console.log(`tablesync ${VERSION} (commit ${COMMIT}, deno ${Deno.version.deno})`);
    return Promise.resolve(0);
  },
};
