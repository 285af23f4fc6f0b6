/**
 * `tablesync run --config FILE`: runs the daemon until SIGTERM or SIGINT. The first signal shuts down
 * gracefully (tasks finish in-flight work, producers flush, offsets are committed) and exits 0; a second
 * signal exits at once. A start that fails says why in one line on stderr, never with a stack trace.
 */
import { type Command, wantsHelp } from "./command.ts";
import { flag, parseArgs, UsageError } from "./args.ts";
import { DaemonStartError, type RunningDaemon, startDaemon } from "../daemon/daemon.ts";
import { KafkaUnreachableError, KafkaWaitAborted, oneLine } from "../daemon/kafka_wait.ts";
import { ConfigError } from "../common/config_error.ts";
import { logger } from "../observability/log.ts";
import { redact } from "../observability/redact.ts";

const USAGE = `tablesync run --config FILE

Runs the daemon: the connectors of the config file, the REST API on the worker's listeners
(Kafka Connect's paths, plus GET /metrics), until SIGTERM or SIGINT.

  --config FILE   the config file (YAML or JSON); see 'tablesync validate'

At start it waits up to 30 s for Kafka (bootstrap.servers), as Kafka Connect's worker does,
printing one line while it cannot reach it:
  tablesync: cannot reach Kafka at HOST:PORT (bootstrap.servers): connection refused; retrying ...
then gives up with exit status 1 (a service manager restarts it); credentials the cluster
refuses end the start at once, in one line. Warnings about the file
(no connectors, unknown worker keys) are logged; errors (see 'tablesync validate') stop the start.

Exit status: 0 after a graceful shutdown (also when stopped while waiting for Kafka), 1 when the
daemon cannot start, 2 on usage errors.`;

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
    // Signals are handled from the start: one during start (waiting for Kafka) stops the start.
    const starting = new AbortController();
    let daemon: RunningDaemon | undefined;
    let signals = 0;
    const onSignal = (name: Deno.Signal) => () => {
      signals++;
      if (signals > 1) {
        log.warn({ signal: name }, "second signal: exiting at once");
        daemon?.herder.kill();
        Deno.exit(1);
      }
      log.info({ signal: name }, `received ${name}`);
      starting.abort();
      daemon?.shutdown();
    };
    const handlers: [Deno.Signal, () => void][] = [
      ["SIGTERM", onSignal("SIGTERM")],
      ["SIGINT", onSignal("SIGINT")],
    ];
    for (const [sig, handler] of handlers) Deno.addSignalListener(sig, handler);
    try {
      daemon = await startDaemon(path, {
        signal: starting.signal,
        onKafkaWaiting: (line) => console.error(redact(`tablesync: ${line}`)),
      });
    } catch (e) {
      for (const [sig, handler] of handlers) Deno.removeSignalListener(sig, handler);
      if (e instanceof KafkaWaitAborted) return 0;
      if (e instanceof ConfigError || e instanceof DaemonStartError || e instanceof KafkaUnreachableError) {
        console.error(`error: ${redact(e.message)}`);
      } else console.error(`error: tablesync could not start: ${redact(oneLine(e as Error))}`);
      return 1;
    }
    if (signals > 0) daemon.shutdown(); // a signal came while the last parts started
    await daemon.done;
    for (const [sig, handler] of handlers) Deno.removeSignalListener(sig, handler);
    return 0;
  },
};
