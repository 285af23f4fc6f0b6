/**
 * `tablesync run --config FILE`: runs the daemon until SIGTERM or SIGINT. The first signal shuts down
 * gracefully (tasks finish in-flight work, producers flush, offsets are committed) and exits 0; a second
 * signal exits at once.
 */
import { type Command, wantsHelp } from "./command.ts";
import { flag, parseArgs, UsageError } from "./args.ts";
import { DaemonStartError, startDaemon } from "../daemon/daemon.ts";
import { ConfigError } from "../config/errors.ts";
import { logger } from "../observability/log.ts";
import { redact } from "../observability/redact.ts";

const USAGE = `tablesync run --config FILE

Runs the daemon: the connectors of the config file, the REST API on the worker's listeners
(Kafka Connect's paths, plus GET /metrics), until SIGTERM or SIGINT.

  --config FILE   the config file (YAML or JSON); see 'tablesync validate'

Exit status: 0 after a graceful shutdown, 1 when the daemon cannot start, 2 on usage errors.`;

export const runCommand: Command = {
  name: "run",
  summary: "run the daemon with a config file",
  usage: USAGE,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(USAGE);
      return 0;
    }
    const parsed = parseArgs(args, { values: ["config"] });
    if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
    const path = flag(parsed, "config");
    if (!path) throw new UsageError("--config FILE is required");
    const log = logger("daemon");
    let daemon;
    try {
      daemon = await startDaemon(path);
    } catch (e) {
      if (e instanceof ConfigError || e instanceof DaemonStartError) {
        console.error(`error: ${redact(e.message)}`);
        return 1;
      }
      console.error(`error: tablesync could not start: ${redact((e as Error).stack ?? String(e))}`);
      return 1;
    }
    let signals = 0;
    const onSignal = (name: Deno.Signal) => () => {
      signals++;
      if (signals > 1) {
        log.warn({ signal: name }, "second signal: exiting at once");
        daemon.herder.kill();
        Deno.exit(1);
      }
      log.info({ signal: name }, `received ${name}`);
      daemon.shutdown();
    };
    const handlers: [Deno.Signal, () => void][] = [["SIGTERM", onSignal("SIGTERM")], [
      "SIGINT",
      onSignal("SIGINT"),
    ]];
    for (const [sig, handler] of handlers) Deno.addSignalListener(sig, handler);
    await daemon.done;
    for (const [sig, handler] of handlers) Deno.removeSignalListener(sig, handler);
    return 0;
  },
};
