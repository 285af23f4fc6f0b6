/**
 * `tablesync run` against a Kafka cluster that answers but refuses: wrong SASL credentials end the start at once
 * with one line (as Connect's worker stops on a SaslAuthenticationException), and a user the cluster's ACLs allow
 * nothing gets one line naming the refusal (TOPIC_AUTHORIZATION_FAILED) for the topic it could not create; never
 * a stack trace, never kafkajs's retries logged one by one. A broker of its own: a SASL_PLAINTEXT listener with an
 * authorizer, which the shared test broker does not have.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { type LaunchedBroker, launchKafkaBroker, stopKafkaBroker } from "../support/kafka_broker_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Runs `run` to its end with a worker section that connects as `username` over SASL PLAIN. */
async function runAs(broker: LaunchedBroker, username: string, password: string, extra = "") {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/tablesync.yaml`,
    `worker:
  bootstrap.servers: ${broker.saslBootstrapServers}
  security.protocol: SASL_PLAINTEXT
  sasl.mechanism: PLAIN
  sasl.jaas.config: org.apache.kafka.common.security.plain.PlainLoginModule required username="${username}" password="${password}";
  listeners: http://127.0.0.1:0
  config.storage.file.filename: ${dir}/connectors.json
  log.level: warn
${extra}`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "run", "--config", `${dir}/tablesync.yaml`],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(dir, { recursive: true });
  const stderr = new TextDecoder().decode(out.stderr).split("\n").filter((l) => l !== "");
  return {
    code: out.code,
    all: stderr.join("\n"),
    /** Lines that are not JSON log entries: what the user reads. */
    plain: stderr.filter((l) => !l.startsWith("{")),
    /** kafkajs's own log entries. */
    kafkajs: stderr.filter((l) => l.startsWith("{") && JSON.parse(l).kafkajs !== undefined),
  };
}

Deno.test("run: Kafka refusing the credentials or the topics is one clear line, at once, no stack", async (t) => {
  const broker = await launchKafkaBroker({ saslPlainUsers: { alice: "alice-secret" } });
  try {
    await t.step("wrong password: one line naming the refusal and the keys to check, exit 1", async () => {
      const out = await runAs(
        broker,
        "alice",
        "not-her-password",
        "  offset.storage.file.filename: offsets.json\n",
      );
      assertEquals(out.code, 1, out.all);
      assertEquals(out.plain, [
        `error: Kafka at ${broker.saslBootstrapServers} (bootstrap.servers) refused tablesync's credentials: ` +
        "SASL PLAIN authentication failed: Authentication failed: Invalid username or password " +
        "(check security.protocol, sasl.mechanism, sasl.jaas.config)",
      ]);
      assertEquals(out.kafkajs, [], out.all);
      assert(!out.all.includes("not-her-password"), "the password was printed");
    });
    await t.step(
      "a user the ACLs allow nothing: one line naming the topic and the refusal, exit 1",
      async () => {
        const out = await runAs(broker, "alice", "alice-secret", "  offset.storage.topic: refused.offsets\n");
        assertEquals(out.code, 1, out.all);
        assertEquals(out.plain.length, 1, out.all);
        assertStringIncludes(
          out.plain[0],
          'error: tablesync could not start: The offsets topic "refused.offsets"',
        );
        assertStringIncludes(
          out.plain[0],
          "Not authorized to access topics: [Topic authorization failed] (TOPIC_AUTHORIZATION_FAILED)",
        );
        assert(!/\n\s+at /.test(out.all), out.all);
      },
    );
  } finally {
    await stopKafkaBroker(broker);
  }
});
