/**
 * Produce/consume helpers for test assertions. Test code may use kafkajs directly; these helpers do, so that a
 * check does not depend on the code under test (src/kafka) agreeing with itself.
 */
import { Kafka, logLevel, Partitioners } from "kafkajs";

export interface TestRecord {
  key?: string | null;
  value: string | null;
  partition?: number;
  headers?: Record<string, string>;
}

export interface DecodedRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

function client(bootstrapServers: string): Kafka {
  return new Kafka({
    brokers: bootstrapServers.split(","),
    clientId: "test-helper",
    logLevel: logLevel.NOTHING,
  });
}

/** Produces records (acks=all) with a plain kafkajs producer. */
export async function produceRecords(
  bootstrapServers: string,
  topic: string,
  records: TestRecord[],
): Promise<void> {
  const producer = client(bootstrapServers).producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    await producer.send({
      topic,
      acks: -1,
      messages: records.map((r) => ({
        key: r.key ?? null,
        value: r.value,
        partition: r.partition,
        headers: r.headers,
      })),
    });
  } finally {
    await producer.disconnect();
  }
}

/**
 * Reads a topic from the beginning with a fresh consumer group until `expected` records arrived (or `timeoutMs`
 * passed: then it returns what it has, so the caller's assertion shows the difference). Sorted by partition, offset.
 */
export async function consumeAll(
  bootstrapServers: string,
  topic: string,
  { expected, timeoutMs = 60_000 }: { expected: number; timeoutMs?: number },
): Promise<DecodedRecord[]> {
  const consumer = client(bootstrapServers).consumer({
    groupId: `test-reader-${crypto.randomUUID()}`,
    sessionTimeout: 6_000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 100,
  });
  const records: DecodedRecord[] = [];
  const read = new Set<string>();
  const decoder = new TextDecoder();
  let done!: () => void;
  const enough = new Promise<void>((resolve) => done = resolve);
  await consumer.connect();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: ({ topic, partition, message }) => {
        // A rebalance on a loaded machine makes kafkajs read some offsets again (nothing is committed): a record
        // read twice is one record, else the count below could be reached with another record still unread.
        const at = `${partition}/${message.offset}`;
        if (read.has(at)) return Promise.resolve();
        read.add(at);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) {
          const last = Array.isArray(v) ? v[v.length - 1] : v;
          if (last !== undefined) headers[k] = typeof last === "string" ? last : decoder.decode(last);
        }
        records.push({
          topic,
          partition,
          offset: Number(message.offset),
          timestamp: Number(message.timestamp),
          key: message.key ? decoder.decode(message.key) : null,
          value: message.value ? decoder.decode(message.value) : null,
          headers,
        });
        if (records.length >= expected) done();
        return Promise.resolve();
      },
    });
    if (expected === 0) done();
    await Promise.race([enough, new Promise<void>((resolve) => timer = setTimeout(resolve, timeoutMs))]);
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
  return records.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

export interface KcatRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

/**
 * Black-box read of a whole topic with the kcat CLI (librdkafka, not kafkajs). Sorted by partition, offset.
 * `readCommitted`: isolation.level=read_committed (records of open or aborted transactions are not read; the end
 * is the last stable offset).
 */
export async function readTopicWithKcat(
  bootstrapServers: string,
  topic: string,
  { readCommitted = false }: { readCommitted?: boolean } = {},
): Promise<KcatRecord[]> {
  const isolation = readCommitted ? ["-X", "isolation.level=read_committed"] : [];
  const stdout = await consumeToEndWithKcat(bootstrapServers, topic, ["-J", ...isolation]);
  return new TextDecoder().decode(stdout).split("\n").filter((l) => l.trim() !== "").map((line) => {
    const j = JSON.parse(line) as {
      topic: string;
      partition: number;
      offset: number;
      ts: number;
      key: string | null;
      payload: string | null;
      headers?: string[];
    };
    const headers: Record<string, string> = {};
    for (let i = 0; j.headers && i < j.headers.length; i += 2) headers[j.headers[i]] = j.headers[i + 1];
    return {
      topic: j.topic,
      partition: j.partition,
      offset: j.offset,
      timestamp: j.ts,
      key: j.key,
      value: j.payload,
      headers,
    };
  }).sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

/** How long one kcat read to the end may take before it is killed and tried again. */
const KCAT_READ_TIMEOUT_MS = 30_000;
const KCAT_READ_ATTEMPTS = 3;

/**
 * kcat's stdout for `-C -o beginning -e -q` on `topic` plus `args` (output format, isolation, count).
 * `-e` sometimes never sees the end of a partition that is written to all the time (seen with a connector's
 * offsets topic: one read hung for 20 minutes while others finished in a second); a read that takes longer than
 * KCAT_READ_TIMEOUT_MS is killed and started again, so a test fails with a clear error instead of hanging.
 */
export async function consumeToEndWithKcat(
  bootstrapServers: string,
  topic: string,
  args: string[],
): Promise<Uint8Array> {
  for (let attempt = 1;; attempt++) {
    const { code, signal, stdout, stderr } = await new Deno.Command("kcat", {
      args: ["-C", "-b", bootstrapServers, "-t", topic, "-o", "beginning", "-e", "-q", ...args],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(KCAT_READ_TIMEOUT_MS),
    }).output();
    if (code === 0) return stdout;
    if (signal === null) throw new Error(`kcat failed (${code}): ${new TextDecoder().decode(stderr)}`);
    if (attempt === KCAT_READ_ATTEMPTS) {
      throw new Error(
        `kcat did not reach the end of ${topic} in ${KCAT_READ_ATTEMPTS} tries of ${
          KCAT_READ_TIMEOUT_MS / 1000
        } s`,
      );
    }
  }
}

/** Produces `lines` with kcat: `key<TAB>value` when keyed; an empty value is a tombstone (-Z). */
export async function produceWithKcat(
  bootstrap: string,
  topic: string,
  lines: string[],
  keyed: boolean,
): Promise<void> {
  const args = ["-P", "-b", bootstrap, "-t", topic, "-Z", ...(keyed ? ["-K", "\t"] : [])];
  const child = new Deno.Command("kcat", { args, stdin: "piped", stdout: "null", stderr: "piped" }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines.join("\n") + "\n"));
  await writer.close();
  const { code, stderr } = await child.output();
  if (code !== 0) throw new Error(`kcat -P failed (${code}): ${new TextDecoder().decode(stderr)}`);
}

/**
 * Joins consumer group `groupId` on `topic` for `ms`, reading nothing and committing nothing, then leaves: the
 * group rebalances twice under its other members (a member joining, then leaving), as a scaled-out consumer does.
 */
export async function visitConsumerGroup(
  bootstrapServers: string,
  groupId: string,
  topic: string,
  ms: number,
): Promise<void> {
  const consumer = client(bootstrapServers).consumer({
    groupId,
    sessionTimeout: 6_000,
    heartbeatInterval: 500,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: async () => {} });
    await new Promise((r) => setTimeout(r, ms));
  } finally {
    await consumer.disconnect();
  }
}
