/**
 * Starts and stops one single-node Apache Kafka broker (KRaft, broker + controller in one JVM) from the jars that
 * scripts/bootstrap resolved from Maven Central into .tools/kafka/broker/ (versions: tests/kafka-broker/pom.xml).
 *
 * The JVM runs detached from the calling Deno process (so a `deno test` file that starts one does not hold a
 * child-process resource across tests) and is watched by a small shell loop: when the owner process exits, however
 * it exits, the watchdog stops the broker and removes its temporary directory. So a broker never outlives the
 * test run, the demo or the benchmark that started it.
 *
 * Settings are tuned for tests on a small machine: small heap, few threads, replication factor 1 everywhere, no
 * initial rebalance delay, a 1 s minimum session timeout, and a log cleaner that wakes up every second (compaction
 * tests set small segments per topic). Topics are never auto-created (auto.create.topics.enable=false, as on most
 * production clusters and the reason Connect has topic.creation.*): a test creates its topics, or the daemon does,
 * and a reader cannot race the daemon by creating a topic first with the wrong settings.
 */
import { freePort } from "./ports.ts";
import { sleep } from "./wait.ts";
import { isAlive, shellQuote, watchOwner } from "./owner_watchdog.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const BROKER_JARS = `${ROOT}.tools/kafka/broker`;

export interface BrokerLaunchOptions {
  /** Process whose exit stops the broker (default: this process). */
  ownerPid?: number;
  /** JVM options; default `-Xmx512m -Xms64m -XX:+UseSerialGC` (or $TABLESYNC_KAFKA_JVM_OPTS, space-separated). */
  jvmOptions?: string[];
  /** Extra or overriding server.properties entries. */
  serverProperties?: Record<string, string | number | boolean>;
  /** Milliseconds to wait for the broker to answer metadata requests; default 60000. */
  timeoutMs?: number;
  /**
   * Users (name → password) of a second listener, SASL_PLAINTEXT with PLAIN, whose users may do only what ACLs
   * allow (none are set: nothing); the PLAINTEXT listener stays open to all (its principal is a super user).
   */
  saslPlainUsers?: Record<string, string>;
  /**
   * The broker may be killed and started again on its data (`restartKafkaBroker`): its watchdog then stops the JVM
   * when the owner exits but leaves the directory (a broker killed on purpose must find its data where it was);
   * `stopKafkaBroker` removes it.
   */
  restartable?: boolean;
}

export interface LaunchedBroker {
  readonly bootstrapServers: string;
  /** The SASL_PLAINTEXT listener's address, with `saslPlainUsers`. */
  readonly saslBootstrapServers?: string;
  readonly pid: number;
  /** The broker's temporary directory (server.properties, broker.log, data/). */
  readonly dir: string;
  /** Milliseconds from launching the JVM (after formatting the storage) until the broker answered. */
  readonly startupMs: number;
  /** The Kafka version of the jars in use. */
  readonly version: string;
}

const DEFAULT_JVM_OPTIONS = ["-Xmx512m", "-Xms64m", "-XX:+UseSerialGC"];

/** Broker settings for tests; see the module comment for why. */
function serverProperties(
  dir: string,
  port: number,
  controllerPort: number,
): Record<string, string | number> {
  return {
    "process.roles": "broker,controller",
    "node.id": 1,
    "listeners": `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${port}`,
    "controller.listener.names": "CONTROLLER",
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "controller.quorum.voters": `1@127.0.0.1:${controllerPort}`,
    "log.dirs": `${dir}/data`,
    "auto.create.topics.enable": "false",
    "num.partitions": 1,
    "default.replication.factor": 1,
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 4,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "transaction.state.log.num.partitions": 2,
    "share.coordinator.state.topic.replication.factor": 1,
    "share.coordinator.state.topic.min.isr": 1,
    "group.initial.rebalance.delay.ms": 0,
    "group.min.session.timeout.ms": 1000,
    "num.network.threads": 2,
    "num.io.threads": 2,
    "background.threads": 2,
    "num.recovery.threads.per.data.dir": 1,
    "log.cleaner.threads": 1,
    "log.cleaner.dedupe.buffer.size": 8 * 1024 * 1024,
    "log.cleaner.backoff.ms": 1000,
    // Source records carry their row's timestamp (sys_updated_on, possibly months old): with Kafka's default
    // retention.ms of 7 days the broker deletes a backfill of old rows minutes after it is written. Tests keep
    // everything; docs/testing.md says what this means for real clusters.
    "log.retention.ms": -1,
  };
}

/** Starts a broker; throws with the broker's log when it does not come up. */
export async function launchKafkaBroker(options: BrokerLaunchOptions = {}): Promise<LaunchedBroker> {
  const version = await kafkaVersion();
  const dir = await Deno.makeTempDir({ prefix: "tablesync-kafka-" });
  const [port, controllerPort] = [freePort(), freePort()];
  const saslPort = options.saslPlainUsers ? freePort() : undefined;
  const properties = {
    ...serverProperties(dir, port, controllerPort),
    ...(options.saslPlainUsers
      ? saslProperties(port, controllerPort, saslPort!, options.saslPlainUsers)
      : {}),
    ...options.serverProperties,
  };
  await Deno.writeTextFile(
    `${dir}/server.properties`,
    Object.entries(properties).map(([k, v]) => `${k}=${v}`).join("\n") + "\n",
  );
  // The broker logs warnings and errors only, into broker.log beside its data.
  await Deno.writeTextFile(
    `${dir}/log4j2.properties`,
    "rootLogger.level=WARN\nrootLogger.appenderRef.out.ref=out\nappender.out.type=Console\nappender.out.name=out\n" +
      "appender.out.layout.type=PatternLayout\nappender.out.layout.pattern=[%d] %p %m (%c)%n\n",
  );
  const common = commonJvmArgs(dir);
  const format = await new Deno.Command("java", {
    args: [
      ...common,
      "kafka.tools.StorageTool",
      "format",
      `--cluster-id=${randomClusterId()}`,
      "-c",
      `${dir}/server.properties`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!format.success) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw new Error(`formatting the broker's storage failed:\n${new TextDecoder().decode(format.stderr)}`);
  }

  const started = performance.now();
  const bootstrapServers = `127.0.0.1:${port}`;
  const pid = await startBrokerJvm(dir, bootstrapServers, options);
  const saslBootstrapServers = saslPort ? `127.0.0.1:${saslPort}` : undefined;
  return {
    bootstrapServers,
    saslBootstrapServers,
    pid,
    dir,
    startupMs: performance.now() - started,
    version,
  };
}

/** The JVM arguments of every Kafka tool and of the broker: headless, the directory's log4j2 file, the jars. */
function commonJvmArgs(dir: string): string[] {
  return [
    "-Djava.awt.headless=true",
    `-Dlog4j2.configurationFile=${dir}/log4j2.properties`,
    "-cp",
    `${BROKER_JARS}/*`,
  ];
}

/**
 * Starts the broker's JVM on the formatted directory `dir` and waits until it serves on `bootstrapServers`;
 * returns its pid. A broker that does not come up is stopped and the error carries its log.
 */
async function startBrokerJvm(
  dir: string,
  bootstrapServers: string,
  options: BrokerLaunchOptions,
): Promise<number> {
  const jvm = options.jvmOptions ??
    (Deno.env.get("TABLESYNC_KAFKA_JVM_OPTS")?.split(" ").filter((o) => o !== "") ?? DEFAULT_JVM_OPTIONS);
  const args = ["java", ...jvm, ...commonJvmArgs(dir), "kafka.Kafka", `${dir}/server.properties`];
  const java = args.map(shellQuote).join(" ");
  // setsid: the JVM and its watchdog leave our process group, so Ctrl-C in a terminal reaches the owner, which
  // stops the broker itself; the watchdog covers owners that die without doing so. The log is appended to, so a
  // restarted broker's lines follow the killed one's.
  const script = `setsid ${java} </dev/null >>${shellQuote(`${dir}/broker.log`)} 2>&1 &
echo $!`;
  const launched = await new Deno.Command("bash", { args: ["-c", script], stdout: "piped" }).output();
  const pid = Number(new TextDecoder().decode(launched.stdout).trim());
  await watchOwner(options.ownerPid ?? Deno.pid, pid, options.restartable ? "" : dir);
  try {
    await waitUntilServing(bootstrapServers, pid, dir, options.timeoutMs ?? 60_000);
  } catch (error) {
    await stopKafkaBroker({ pid, dir });
    throw error;
  }
  return pid;
}

/**
 * Starts a broker launched with `restartable` again, on the same data directory and ports, after its JVM exited
 * (killed by a test); returns it with its new pid. Throws if the old JVM still runs.
 */
export async function restartKafkaBroker(
  broker: LaunchedBroker,
  options: BrokerLaunchOptions = {},
): Promise<LaunchedBroker> {
  if (isAlive(broker.pid)) throw new Error(`the broker (pid ${broker.pid}) still runs: stop it first`);
  const started = performance.now();
  const pid = await startBrokerJvm(broker.dir, broker.bootstrapServers, { ...options, restartable: true });
  return { ...broker, pid, startupMs: performance.now() - started };
}

/** A SASL_PLAINTEXT listener beside the PLAINTEXT one, and an authorizer that lets its users do nothing. */
function saslProperties(
  port: number,
  controllerPort: number,
  saslPort: number,
  users: Record<string, string>,
): Record<string, string> {
  const jaasUsers = Object.entries(users).map(([name, password]) => `user_${name}="${password}"`).join(" ");
  return {
    "listeners": `PLAINTEXT://127.0.0.1:${port},SASL_PLAINTEXT://127.0.0.1:${saslPort},` +
      `CONTROLLER://127.0.0.1:${controllerPort}`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${port},SASL_PLAINTEXT://127.0.0.1:${saslPort}`,
    "listener.security.protocol.map":
      "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
    "inter.broker.listener.name": "PLAINTEXT",
    "sasl.enabled.mechanisms": "PLAIN",
    "listener.name.sasl_plaintext.plain.sasl.jaas.config":
      `org.apache.kafka.common.security.plain.PlainLoginModule required ${jaasUsers};`,
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:ANONYMOUS",
    "allow.everyone.if.no.acl.found": "false",
  };
}

/** Stops the broker (SIGTERM, then SIGKILL after 15 s) and removes its directory. */
export async function stopKafkaBroker(broker: Pick<LaunchedBroker, "pid" | "dir">): Promise<void> {
  signal(broker.pid, "SIGTERM");
  const deadline = Date.now() + 15_000;
  while (isAlive(broker.pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(broker.pid)) signal(broker.pid, "SIGKILL");
  while (isAlive(broker.pid)) await sleep(50);
  await Deno.remove(broker.dir, { recursive: true }).catch(() => {});
}

/** Resident memory of the broker's JVM now and at its peak, MiB (null once it has exited). */
export function brokerMemory(pid: number): { rssMiB: number; peakMiB: number } | null {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rssMiB: Math.round(kib("VmRSS") / 1024), peakMiB: Math.round(kib("VmHWM") / 1024) };
  } catch {
    return null;
  }
}

/** A one-line description for logs: version, address, start-up time, memory. */
export function describeBroker(broker: LaunchedBroker): string {
  const memory = brokerMemory(broker.pid);
  return `Kafka ${broker.version} broker on ${broker.bootstrapServers} (pid ${broker.pid}) started in ` +
    `${(broker.startupMs / 1000).toFixed(1)} s, RSS ${memory?.rssMiB ?? "?"} MiB`;
}

async function kafkaVersion(): Promise<string> {
  let jars: string[];
  try {
    jars = [...Deno.readDirSync(BROKER_JARS)].map((e) => e.name);
  } catch {
    throw new Error(`no Kafka broker jars in ${BROKER_JARS}: run \`bash scripts/bootstrap\` first`);
  }
  const server = jars.find((name) => /^kafka_2\.13-.+\.jar$/.test(name));
  if (!server) throw new Error(`${BROKER_JARS} has no kafka_2.13 jar: run \`bash scripts/bootstrap\` again`);
  return await Promise.resolve(server.replace(/^kafka_2\.13-/, "").replace(/\.jar$/, ""));
}

/** Waits until the broker answers a Metadata request naming itself (raw protocol, no client library). */
async function waitUntilServing(
  bootstrap: string,
  pid: number,
  dir: string,
  timeoutMs: number,
): Promise<void> {
  const [host, port] = bootstrap.split(":");
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) {
      const log = await Deno.readTextFile(`${dir}/broker.log`).catch(() => "(no log)");
      throw new Error(`the Kafka broker exited during start-up:\n${log}`);
    }
    if (await answersMetadata(host, Number(port))) return;
    await sleep(200);
  }
  const log = await Deno.readTextFile(`${dir}/broker.log`).catch(() => "(no log)");
  throw new Error(`the Kafka broker did not answer within ${timeoutMs} ms:\n${log}`);
}

/**
 * Sends Metadata v12 (no topics) and checks the response lists one broker. Before the broker has registered with
 * its controller the port may be open while the broker list is still empty.
 */
async function answersMetadata(hostname: string, port: number): Promise<boolean> {
  let conn: Deno.TcpConn | undefined;
  try {
    conn = await Deno.connect({ hostname, port });
    const clientId = new TextEncoder().encode("probe");
    // Header v2: api key 3, version 12, correlation id 1, client id, empty tagged fields.
    // Body v12: topics = null (compact array length 0), allow_auto_topic_creation false,
    // include_topic_authorized_operations false, tagged fields.
    const body = [0x00, 0x00, 0x00, 0x00];
    const header = [0x00, 0x03, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x01, 0x00, clientId.length, ...clientId, 0x00];
    const payload = new Uint8Array([...header, ...body]);
    const frame = new Uint8Array(4 + payload.length);
    new DataView(frame.buffer).setInt32(0, payload.length);
    frame.set(payload, 4);
    await conn.write(frame);
    const sizeBuffer = await readExactly(conn, 4);
    const size = new DataView(sizeBuffer.buffer).getInt32(0);
    const response = await readExactly(conn, size);
    // correlation id (4), tagged fields (1), throttle (4), brokers compact array length (varint, N+1).
    return response[9] >= 2;
  } catch {
    return false;
  } finally {
    conn?.close();
  }
}

async function readExactly(conn: Deno.Conn, n: number): Promise<Uint8Array> {
  const out = new Uint8Array(n);
  let read = 0;
  while (read < n) {
    const got = await conn.read(out.subarray(read));
    if (got === null) throw new Error("connection closed");
    read += got;
  }
  return out;
}

/**
 * A KRaft cluster id: 16 random bytes, URL-safe base64 without padding (what `kafka-storage random-uuid` prints).
 * It may start with "-", so it is passed as `--cluster-id=ID`, never as a separate argument.
 */
function randomClusterId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function signal(pid: number, name: Deno.Signal): void {
  try {
    Deno.kill(pid, name);
  } catch { /* already gone */ }
}
