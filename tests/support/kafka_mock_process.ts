/**
 * The librdkafka mock cluster in a child process (kafka_mock_child.ts), for tests that need process-level faults
 * (SIGSTOP = a hung cluster with open sockets, SIGKILL = cluster death) and for scripts that run a broker beside
 * the daemon. The child exits when its stdin closes, so it cannot outlive this process.
 *
 * Needs `--allow-run` here; the child gets `--allow-ffi`.
 */
import type { KafkaMockControl } from "./kafka_mock.ts";
import { readLines } from "./read_lines.ts";

export interface KafkaMockProcessOptions {
  /** Default 1. */
  brokers?: number;
  /** Topics to create at start: name → partitions (replication factor min(3, brokers)). */
  topics?: Record<string, number>;
}

const CHILD_SCRIPT = new URL("./kafka_mock_child.ts", import.meta.url);

export class KafkaMockProcess implements KafkaMockControl, AsyncDisposable {
  readonly bootstrapServers: string;
  readonly pid: number;
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: AsyncIterator<string>;
  #queue: Promise<unknown> = Promise.resolve();
  #closed: Promise<void> | null = null;

  private constructor(
    child: Deno.ChildProcess,
    writer: WritableStreamDefaultWriter<Uint8Array>,
    lines: AsyncIterator<string>,
    bootstraps: string,
  ) {
    this.#child = child;
    this.#writer = writer;
    this.#lines = lines;
    this.bootstrapServers = bootstraps;
    this.pid = child.pid;
  }

  static async start(options: KafkaMockProcessOptions = {}): Promise<KafkaMockProcess> {
    const brokers = options.brokers ?? 1;
    const topics = Object.entries(options.topics ?? {})
      .map(([name, partitions]) => `${name}:${partitions}:${Math.min(3, brokers)}`).join(",");
    const args = ["run", "--allow-ffi", "--no-lock", CHILD_SCRIPT.pathname, "--brokers", String(brokers)];
    if (topics) args.push("--topics", topics);
    const child = new Deno.Command(Deno.execPath(), {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    })
      .spawn();
    const lines = readLines(child.stdout);
    const first = await lines.next();
    if (first.done) {
      await child.status;
      throw new Error("the Kafka mock child exited before printing its bootstrap servers");
    }
    const { bootstraps } = JSON.parse(first.value) as { bootstraps: string };
    return new KafkaMockProcess(child, child.stdin.getWriter(), lines, bootstraps);
  }

  createTopic(name: string, partitions: number, replicationFactor = 1): Promise<void> {
    return this.#send({ op: "createTopic", name, partitions, replicationFactor });
  }
  brokerDown(brokerId: number): Promise<void> {
    return this.#send({ op: "brokerDown", brokerId });
  }
  brokerUp(brokerId: number): Promise<void> {
    return this.#send({ op: "brokerUp", brokerId });
  }
  setRtt(brokerId: number, rttMs: number): Promise<void> {
    return this.#send({ op: "setRtt", brokerId, rttMs });
  }
  pushRequestErrors(apiKey: number, codes: number[]): Promise<void> {
    return this.#send({ op: "pushRequestErrors", apiKey, codes });
  }
  setPartitionLeader(topic: string, partition: number, brokerId: number): Promise<void> {
    return this.#send({ op: "setPartitionLeader", topic, partition, brokerId });
  }

  /**
   * Sends a signal to the child: SIGSTOP/SIGCONT to hang/resume the cluster, SIGKILL to kill it. SIGSTOP and
   * SIGCONT return once the kernel reports the child stopped or running again (kill(2) returns before the
   * child's threads have stopped; on a loaded machine a request sent right after could still be answered).
   */
  signal(signal: Deno.Signal): void {
    this.#child.kill(signal);
    if (signal === "SIGSTOP" || signal === "SIGCONT") this.#awaitState(signal === "SIGSTOP");
  }

  /** The child's state from /proc (`T` is stopped), up to 2 s; nothing where /proc is missing. */
  #awaitState(stopped: boolean): void {
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline) {
      let stat: string;
      try {
        stat = Deno.readTextFileSync(`/proc/${this.pid}/stat`);
      } catch {
        return;
      }
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if ((state === "T") === stopped) return;
    }
    throw new Error(`the Kafka mock child is not ${stopped ? "stopped" : "running"} 2 s after the signal`);
  }

  /** The child's exit status (resolves when it exits, e.g. after SIGKILL or close()). */
  get status(): Promise<Deno.CommandStatus> {
    return this.#child.status;
  }

  /** Closes stdin (the child exits); kills it if it has not exited after 2 s (e.g. it is SIGSTOPped). */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      this.#child.status.then(() => true),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), 2_000)),
    ]);
    clearTimeout(timer);
    if (!exited) {
      try {
        this.#child.kill("SIGKILL");
      } catch { /* already gone */ }
      await this.#child.status;
    }
    // Drain stdout so the pipe resource is closed.
    while (!(await this.#lines.next()).done) { /* discard */ }
  }

  #send(command: Record<string, unknown>): Promise<void> {
    const run = async () => {
      await this.#writer.write(new TextEncoder().encode(JSON.stringify(command) + "\n"));
      const reply = await this.#lines.next();
      if (reply.done) throw new Error(`the Kafka mock child exited during ${command.op}`);
      const { ok, error } = JSON.parse(reply.value) as { ok: boolean; error?: string };
      if (!ok) throw new Error(`${command.op} failed: ${error}`);
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => {});
    return result;
  }
}

export function startKafkaMockProcess(options: KafkaMockProcessOptions = {}): Promise<KafkaMockProcess> {
  return KafkaMockProcess.start(options);
}
