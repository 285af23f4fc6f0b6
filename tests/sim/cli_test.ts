/** `tablesync simulate` flags, usage errors, and a real process that prints its URL and serves curl-like calls. */
import { assert, assertEquals } from "../support/assert.ts";
import { parseSimulateArgs, simulateCommand } from "../../src/cli/simulate.ts";

Deno.test("flags parse into simulator options", async () => {
  assertEquals(
    await parseSimulateArgs([
      "--port",
      "0",
      "--host=0.0.0.0",
      "--seed",
      "incident=10,problem=2",
      "--user",
      "a:b:c",
      "--user",
      "x:y",
      "--oauth-client",
      "id:sec",
      "--latency-ms",
      "5",
      "--writer-rate",
      "3",
    ]),
    {
      port: 0,
      host: "0.0.0.0",
      seed: { incident: 10, problem: 2 },
      users: ["a:b:c", "x:y"],
      oauthClients: ["id:sec"],
      latencyMs: 5,
      writer: { rowsPerSecond: 3 },
    },
  );
  assertEquals(await parseSimulateArgs(["--help"]), "help");
  assertEquals(
    (await parseSimulateArgs(["--writer-silent", "10", "--writer-rate", "100"]) as { writer: unknown })
      .writer,
    { rowsPerSecond: 100, silentShare: 0.1 },
  );
  assertEquals(await parseSimulateArgs(["--acl-hide", "10", "--proxy-date"]), {
    port: 8089,
    faults: [{ fault: { kind: "acl_hide", percent: 10 } }, { fault: { kind: "double_date" } }],
  });
});

Deno.test("an unknown flag or a bad value prints usage and returns 2", async () => {
  const errors: string[] = [];
  const original = console.error;
  console.error = (...a: unknown[]) => errors.push(a.join(" "));
  try {
    assertEquals(await simulateCommand(["--bogus"]), 2);
    assertEquals(await simulateCommand(["--seed", "incident"]), 2);
    assertEquals(await simulateCommand(["--seed", "incident=5,change_request=3"]), 2);
    assert(
      errors.some((e) => e.includes("--seed: cannot generate rows for change_request; tables: sys_user,")),
      errors.join("\n"),
    );
    assertEquals(await simulateCommand(["--tls-cert", "x.pem"]), 2);
    assertEquals(await simulateCommand(["--writer-silent", "10"]), 2);
    assert(errors.some((e) => e.includes("--writer-silent needs --writer-rate")), errors.join("\n"));
    assertEquals(await simulateCommand(["--writer-rate", "5", "--writer-silent", "101"]), 2);
    // A following flag is never taken as a value.
    assertEquals(await simulateCommand(["--host", "--port", "1"]), 2);
    assert(errors.some((e) => e.includes("flag --host needs a value")), errors.join("\n"));
    assertEquals(await simulateCommand(["--user", "admin"]), 2);
    assert(errors.some((e) => e.includes("--user needs U:P")), errors.join("\n"));
  } finally {
    console.error = original;
  }
  assert(
    errors[0].includes("unknown flag --bogus") && errors[0].includes("Usage: tablesync simulate"),
    errors[0],
  );
});

Deno.test("the command prints its URL once it accepts requests and exits 0 on SIGTERM", async () => {
  const script = new URL("../../src/cli/simulate.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...["run", "-A", script, "--port", "0", "--seed", "incident=50", "--user", "admin:secret"],
      ...["--sessions", "--nodes", "2", "--threads", "4", "--queue", "50", "--quota-ms", "60000"],
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
  assert(m, out);
  const res = await fetch(`${m![1]}/api/now/table/incident?sysparm_limit=1`, {
    headers: { authorization: "Basic " + btoa("admin:secret") },
  });
  assertEquals([res.status, res.headers.get("x-total-count")], [200, "50"]);
  await res.body?.cancel();
  // The limits' flags took effect: a session opened, Server-Timing, and the counters over HTTP.
  assert(res.headers.getSetCookie().some((c) => c.startsWith("JSESSIONID=")), "no session cookie");
  assert(/^sem_wait;dur=\d+, sesh_wait;dur=\d+$/.test(res.headers.get("server-timing") ?? ""));
  const stats = await (await fetch(`${m![1]}/sim/stats`)).json();
  assertEquals([stats.sessionsOpened, stats.semaphores.length], [1, 2]);
  child.kill("SIGTERM");
  assertEquals((await child.status).code, 0);
  reader.releaseLock();
  await child.stdout.cancel().catch(() => {});
});
