/**
 * librdkafka's mock Kafka cluster (its `rd_kafka_mock_*` API, librdkafka 2.0.2), in-process through Deno FFI.
 *
 * The mock runs on librdkafka's own native threads, so the JS event loop is not involved and fault injection
 * calls are synchronous. Needs `--allow-ffi`. Brokers listen on ephemeral 127.0.0.1 ports; ids are 1..N.
 *
 * What the mock cannot do (librdkafka 2.0.2): CreateTopics/DeleteTopics/DescribeGroups/ListGroups/OffsetDelete,
 * idempotent producers (no controller id in Metadata), compaction, transaction markers. Topics are created here
 * with `createTopic` or auto-created by a Metadata request (4 partitions, RF = min(3, brokers)).
 *
 * ```ts
 * await using kafka = startKafkaMock({ brokers: 3 });
 * kafka.createTopic("t", 6, 3);
 * kafka.brokerDown(1);
 * ```
 */

const SYMBOLS = {
  rd_kafka_conf_new: { parameters: [], result: "pointer" },
  rd_kafka_conf_set: { parameters: ["pointer", "buffer", "buffer", "buffer", "usize"], result: "i32" },
  rd_kafka_new: { parameters: ["i32", "pointer", "buffer", "usize"], result: "pointer" },
  rd_kafka_destroy: { parameters: ["pointer"], result: "void" },
  rd_kafka_mock_cluster_new: { parameters: ["pointer", "i32"], result: "pointer" },
  rd_kafka_mock_cluster_destroy: { parameters: ["pointer"], result: "void" },
  rd_kafka_mock_cluster_bootstraps: { parameters: ["pointer"], result: "pointer" },
  rd_kafka_mock_topic_create: { parameters: ["pointer", "buffer", "i32", "i32"], result: "i32" },
  rd_kafka_mock_broker_set_down: { parameters: ["pointer", "i32"], result: "i32" },
  rd_kafka_mock_broker_set_up: { parameters: ["pointer", "i32"], result: "i32" },
  rd_kafka_mock_broker_set_rtt: { parameters: ["pointer", "i32", "i32"], result: "i32" },
  rd_kafka_mock_partition_set_leader: { parameters: ["pointer", "buffer", "i32", "i32"], result: "i32" },
  rd_kafka_mock_push_request_errors_array: {
    parameters: ["pointer", "i16", "usize", "buffer"],
    result: "void",
  },
  rd_kafka_err2name: { parameters: ["i32"], result: "pointer" },
} as const;

type Library = Deno.DynamicLibrary<typeof SYMBOLS>;

/** Kafka protocol API keys worth injecting errors into. */
export const ApiKey = {
  Produce: 0,
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
} as const;

/** Kafka protocol error codes worth injecting. */
export const ErrorCode = {
  NOT_LEADER_FOR_PARTITION: 6,
  REQUEST_TIMED_OUT: 7,
  NOT_COORDINATOR: 16,
  REBALANCE_IN_PROGRESS: 27,
  UNKNOWN_MEMBER_ID: 25,
} as const;

export interface KafkaMockOptions {
  /** Number of brokers (ids 1..N); default 1. */
  brokers?: number;
}

/** The control surface shared by the in-process mock and the child-process mock (kafka_mock_process.ts). */
export interface KafkaMockControl {
  /** Comma-separated host:port list. */
  readonly bootstrapServers: string;
  /** Creates a topic (throws if it exists or the arguments are invalid). */
  createTopic(name: string, partitions: number, replicationFactor?: number): void | Promise<void>;
  /** Stops the broker listening and closes its connections (clients get ECONNREFUSED). */
  brokerDown(brokerId: number): void | Promise<void>;
  brokerUp(brokerId: number): void | Promise<void>;
  /** Adds `rttMs` of latency to every response of the broker; 0 removes it. */
  setRtt(brokerId: number, rttMs: number): void | Promise<void>;
  /** The next `codes.length` requests of `apiKey` (any broker) fail with these error codes, in order. */
  pushRequestErrors(apiKey: number, codes: number[]): void | Promise<void>;
  setPartitionLeader(topic: string, partition: number, brokerId: number): void | Promise<void>;
  close(): void | Promise<void>;
}

const encoder = new TextEncoder();
const cString = (s: string) => encoder.encode(s + "\0");

/** An in-process mock cluster. Close it (or `await using`) to free the native handles and ports. */
export class KafkaMock implements KafkaMockControl, AsyncDisposable {
  readonly bootstrapServers: string;
  readonly brokerCount: number;
  #lib: Library | null;
  #rk: Deno.PointerValue;
  #cluster: Deno.PointerValue;

  private constructor(lib: Library, rk: Deno.PointerValue, cluster: Deno.PointerValue, brokers: number) {
    this.#lib = lib;
    this.#rk = rk;
    this.#cluster = cluster;
    this.brokerCount = brokers;
    this.bootstrapServers = new Deno.UnsafePointerView(lib.symbols.rd_kafka_mock_cluster_bootstraps(cluster)!)
      .getCString();
  }

  static start(options: KafkaMockOptions = {}): KafkaMock {
    const brokers = options.brokers ?? 1;
    const lib = Deno.dlopen("librdkafka.so.1", SYMBOLS);
    try {
      const conf = lib.symbols.rd_kafka_conf_new();
      const errbuf = new Uint8Array(512);
      // Without log_level=3 librdkafka warns on stderr that no bootstrap.servers is configured (the host handle
      // needs none: it only owns the mock cluster).
      if (
        lib.symbols.rd_kafka_conf_set(
          conf,
          cString("log_level"),
          cString("3"),
          errbuf,
          BigInt(errbuf.length),
        ) !== 0
      ) {
        throw new Error(`rd_kafka_conf_set failed: ${decodeCString(errbuf)}`);
      }
      const rk = lib.symbols.rd_kafka_new(0, conf, errbuf, BigInt(errbuf.length));
      if (rk === null) throw new Error(`rd_kafka_new failed: ${decodeCString(errbuf)}`);
      const cluster = lib.symbols.rd_kafka_mock_cluster_new(rk, brokers);
      if (cluster === null) {
        lib.symbols.rd_kafka_destroy(rk);
        throw new Error("rd_kafka_mock_cluster_new failed");
      }
      return new KafkaMock(lib, rk, cluster, brokers);
    } catch (e) {
      lib.close();
      throw e;
    }
  }

  createTopic(name: string, partitions: number, replicationFactor = 1): void {
    this.#check(
      "rd_kafka_mock_topic_create",
      this.#symbols.rd_kafka_mock_topic_create(this.#cluster, cString(name), partitions, replicationFactor),
    );
  }

  brokerDown(brokerId: number): void {
    this.#check(
      "rd_kafka_mock_broker_set_down",
      this.#symbols.rd_kafka_mock_broker_set_down(this.#cluster, brokerId),
    );
  }

  brokerUp(brokerId: number): void {
    this.#check(
      "rd_kafka_mock_broker_set_up",
      this.#symbols.rd_kafka_mock_broker_set_up(this.#cluster, brokerId),
    );
  }

  setRtt(brokerId: number, rttMs: number): void {
    this.#check(
      "rd_kafka_mock_broker_set_rtt",
      this.#symbols.rd_kafka_mock_broker_set_rtt(this.#cluster, brokerId, rttMs),
    );
  }

  pushRequestErrors(apiKey: number, codes: number[]): void {
    this.#symbols.rd_kafka_mock_push_request_errors_array(
      this.#cluster,
      apiKey,
      BigInt(codes.length),
      new Int32Array(codes),
    );
  }

  setPartitionLeader(topic: string, partition: number, brokerId: number): void {
    this.#check(
      "rd_kafka_mock_partition_set_leader",
      this.#symbols.rd_kafka_mock_partition_set_leader(this.#cluster, cString(topic), partition, brokerId),
    );
  }

  close(): void {
    const lib = this.#lib;
    if (!lib) return;
    this.#lib = null;
    lib.symbols.rd_kafka_mock_cluster_destroy(this.#cluster);
    lib.symbols.rd_kafka_destroy(this.#rk);
    lib.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.close();
    return Promise.resolve();
  }

  get #symbols(): Library["symbols"] {
    if (!this.#lib) throw new Error("the Kafka mock is closed");
    return this.#lib.symbols;
  }

  #check(call: string, err: number): void {
    if (err === 0) return;
    const name = new Deno.UnsafePointerView(this.#symbols.rd_kafka_err2name(err)!).getCString();
    throw new Error(`${call} failed: ${name} (${err})`);
  }
}

/** Starts an in-process mock cluster. */
export function startKafkaMock(options: KafkaMockOptions = {}): KafkaMock {
  return KafkaMock.start(options);
}

function decodeCString(buf: Uint8Array): string {
  const end = buf.indexOf(0);
  return new TextDecoder().decode(end < 0 ? buf : buf.subarray(0, end));
}
