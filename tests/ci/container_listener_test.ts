/**
 * The container image's listener (deploy/Dockerfile sets TABLESYNC_LISTENERS, the listeners when the config file
 * sets none) is reachable from outside: the real daemon, started with that environment and a config without
 * `listeners`, answers /health on this machine's non-loopback address (503 until Kafka answers, but an answer), as a published port's traffic arrives.
 * Without the variable the default stays loopback only. (No image is built here: that needs a Docker daemon; the
 * release workflow builds it.) Kafka need not be there: the listener opens before the wait for Kafka.
 */
import { assertEquals } from "../support/assert.ts";
import { readLines } from "../support/read_lines.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const DOCKERFILE = new URL("../../deploy/Dockerfile", import.meta.url).pathname;

/** An IPv4 address of this machine other than loopback, if it has one. */
const outsideAddress = Deno.networkInterfaces().find((i) =>
  i.family === "IPv4" && !i.address.startsWith("127.")
)
  ?.address;

/** Starts `run` with `env`, returns the listener's URL from its log, the result of `probe` on it, then stops it. */
async function withDaemon<T>(env: Record<string, string>, probe: (url: URL) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const kafka = `127.0.0.1:${(closed.addr as Deno.NetAddr).port}`;
  closed.close();
  await Deno.writeTextFile(
    `${dir}/tablesync.yaml`,
    `worker:\n  bootstrap.servers: ${kafka}\n  offset.storage.file.filename: ${dir}/offsets.json\n` +
      `  config.storage.file.filename: ${dir}/connectors.json\n  log.level: info\n`,
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "run", "--config", `${dir}/tablesync.yaml`],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    for await (const line of readLines(child.stderr)) {
      const url = line.startsWith("{") ? JSON.parse(line).url : undefined;
      if (url && JSON.parse(line).msg?.startsWith("REST API listening")) return await probe(new URL(url));
    }
    throw new Error("the daemon never said where it listens");
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await child.stderr.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
}

async function health(host: string, port: string): Promise<number | string> {
  return await fetch(`http://${host}:${port}/health`).then(
    async (r) => (await r.body?.cancel(), r.status),
    (e: Error) => e.message,
  );
}

Deno.test({
  name: "the image's listener answers on a non-loopback address; without it the default is loopback only",
  ignore: outsideAddress === undefined,
  async fn() {
    const listeners = /^ENV TABLESYNC_LISTENERS=(\S+)$/m.exec(await Deno.readTextFile(DOCKERFILE))?.[1];
    assertEquals(listeners, "http://0.0.0.0:8083");
    // Port 0: any free port here; the image's 8083 may be taken on a shared machine.
    const inImage = await withDaemon(
      { TABLESYNC_LISTENERS: listeners!.replace(":8083", ":0") },
      async (url) => ({ host: url.hostname, outside: await health(outsideAddress!, url.port) }),
    );
    // Any HTTP answer will do (/health says 503 until Kafka answers): the connection reached the daemon.
    assertEquals(inImage.host, "0.0.0.0");
    assertEquals(typeof inImage.outside, "number", String(inImage.outside));
    const elsewhere = await withDaemon({}, async (url) => ({
      host: url.hostname,
      outside: await health(outsideAddress!, url.port),
    }));
    assertEquals(elsewhere.host, "127.0.0.1");
    assertEquals(
      typeof elsewhere.outside,
      "string",
      "the default listener answered on a non-loopback address",
    );
  },
});
