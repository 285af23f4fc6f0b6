/**
 * Kafka Connect's own classes, driven from the tests: ConnectConformance.java (beside this file) runs in a JVM with
 * the Connect jars scripts/bootstrap resolved from Maven Central (.tools/kafka/connect/, version pinned in
 * tests/kafka-broker/pom.xml) and answers JSON-line requests. It is compiled on first use into
 * .tools/kafka/conformance/<source hash>/, so an edited harness is compiled again.
 *
 * ```ts
 * await using connect = await startConnectHarness();
 * const { json } = await connect.request({ op: "convert", envelope, config: { "schemas.enable": "false" } });
 * ```
 */
import { readLines } from "../support/read_lines.ts";

const HERE = new URL(".", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;
const CONNECT_JARS = `${ROOT}.tools/kafka/connect`;
const SOURCE = `${HERE}ConnectConformance.java`;

export interface ConnectHarness extends AsyncDisposable {
  /** Sends one request; resolves with the answer, rejects with Connect's exception when it threw. */
  request(request: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** Thrown when Connect's code threw: `message` is "ExceptionClass: message". */
export class ConnectError extends Error {
  override name = "ConnectError";
}

async function compiledClasses(): Promise<string> {
  const source = await Deno.readFile(SOURCE);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", source));
  const hash = [...digest.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const dir = `${ROOT}.tools/kafka/conformance/${hash}`;
  try {
    await Deno.stat(`${dir}/ConnectConformance.class`);
    return dir;
  } catch { /* not compiled yet */ }
  try {
    await Deno.stat(CONNECT_JARS);
  } catch {
    throw new Error(`no Kafka Connect jars in ${CONNECT_JARS}: run \`bash scripts/bootstrap\` first`);
  }
  // Compiled into a private directory, then renamed: test files compiling at the same time do not collide.
  const scratch = await Deno.makeTempDir({ dir: `${ROOT}.tools/kafka`, prefix: "conformance-build-" });
  const { success, stderr } = await new Deno.Command("javac", {
    args: ["-nowarn", "-d", scratch, "-cp", `${CONNECT_JARS}/*`, SOURCE],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) {
    await Deno.remove(scratch, { recursive: true });
    throw new Error(`javac ConnectConformance.java failed:\n${new TextDecoder().decode(stderr)}`);
  }
  await Deno.mkdir(`${ROOT}.tools/kafka/conformance`, { recursive: true });
  try {
    await Deno.rename(scratch, dir);
  } catch {
    await Deno.remove(scratch, { recursive: true }); // another process won the race: its classes are the same
  }
  return dir;
}

/** Starts the JVM; close it (or `await using`) at the end of the test. */
export async function startConnectHarness(): Promise<ConnectHarness> {
  const classes = await compiledClasses();
  const child = new Deno.Command("java", {
    args: [
      "-Xmx256m",
      "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1",
      "-cp",
      `${classes}:${CONNECT_JARS}/*`,
      "ConnectConformance",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = readLines(child.stdout);
  const stderr = new Response(child.stderr).text();
  let queue: Promise<unknown> = Promise.resolve();
  const encoder = new TextEncoder();
  const harness: ConnectHarness = {
    request(request) {
      const run = async () => {
        await writer.write(encoder.encode(JSON.stringify(request) + "\n"));
        const line = await lines.next();
        if (line.done) throw new Error(`the Connect harness exited:\n${await stderr}`);
        const answer = JSON.parse(line.value);
        if (!answer.ok) throw new ConnectError(answer.error);
        return answer;
      };
      const result = queue.then(run, run);
      queue = result.catch(() => {});
      return result;
    },
    async close() {
      await writer.close().catch(() => {});
      while (!(await lines.next()).done) { /* drain */ }
      await child.status;
      await stderr;
    },
    [Symbol.asyncDispose]() {
      return harness.close();
    },
  };
  return harness;
}
