/** HTTPS with a given certificate, and mTLS requiring a client certificate (fixtures made by openssl). */
import { assertEquals, assertRejects } from "../support/assert.ts";
import { AUTH } from "./helpers.ts";
import { withSim } from "../support/sim.ts";

async function openssl(dir: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

/** A CA, a server certificate for localhost/127.0.0.1 and a client certificate, all v3. */
async function fixtures() {
  const dir = await Deno.makeTempDir({ prefix: "sim-tls-" });
  await Deno.writeTextFile(`${dir}/server.ext`, "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  await Deno.writeTextFile(`${dir}/client.ext`, "extendedKeyUsage=clientAuth\n");
  await openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "1",
    "-subj",
    "/CN=sim-test-ca",
  );
  for (const name of ["server", "client"]) {
    await openssl(
      dir,
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
      "-subj",
      `/CN=${name === "server" ? "localhost" : "client1"}`,
    );
    await openssl(
      dir,
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.pem`,
      "-days",
      "1",
      "-extfile",
      `${name}.ext`,
    );
  }
  const read = (f: string) => Deno.readTextFileSync(`${dir}/${f}`);
  return {
    dir,
    ca: read("ca.pem"),
    cert: read("server.pem"),
    key: read("server.key"),
    clientCert: read("client.pem"),
    clientKey: read("client.key"),
  };
}

Deno.test("HTTPS and mTLS", async () => {
  const f = await fixtures();
  try {
    await withSim({ tls: { cert: f.cert, key: f.key } }, async (sim) => {
      assertEquals(sim.url.startsWith("https://"), true);
      const client = Deno.createHttpClient({ caCerts: [f.ca] });
      const res = await fetch(`${sim.url}/api/now/table/incident`, { headers: AUTH, client });
      assertEquals([res.status, (await res.json()).result], [200, []]);
      client.close();
    });
    await withSim(
      { tls: { cert: f.cert, key: f.key, caForClientCerts: f.ca, requireClientCert: true } },
      async (sim) => {
        const withCert = Deno.createHttpClient({ caCerts: [f.ca], cert: f.clientCert, key: f.clientKey });
        const res = await fetch(`${sim.url}/api/now/table/problem?sysparm_limit=1`, {
          headers: AUTH,
          client: withCert,
        });
        assertEquals([res.status, res.headers.get("x-total-count")], [200, "0"]);
        withCert.close();
        const without = Deno.createHttpClient({ caCerts: [f.ca] });
        await assertRejects(() =>
          fetch(`${sim.url}/api/now/table/problem`, { headers: AUTH, client: without }).then((r) => r.text())
        );
        without.close();
      },
    );
  } finally {
    await Deno.remove(f.dir, { recursive: true });
  }
});
