/**
 * The least a client can do to write rows one request each: `permits` loops of PATCH and read the answer, with
 * fetch, in a process of its own, no Kafka and no daemon. The sink bench runs it against the same simulator as
 * the daemon, so the figures show what this machine allows at that moment, beside what the daemon reaches.
 *
 *   deno run -A bench/support/bare_writer.ts <api url> <user:password> <control url> <table> <count> <permits>
 *
 * Prints its CPU seconds over the writes (`cpu <seconds>`), to read the daemon's CPU per write against.
 */
import process from "node:process";
const [url, user, control, table, countText, permitsText] = Deno.args;
const count = Number(countText);
const ids: string[] = await (await fetch(`${control}/sys-ids?table=${table}`)).json();
const headers = {
  authorization: `Basic ${btoa(user)}`,
  "content-type": "application/json",
  accept: "application/json",
};
let next = 0;
async function loop(): Promise<void> {
  while (next < count) {
    const i = next++;
    const response = await fetch(
      `${url}/api/now/table/${table}/${ids[i % ids.length]}?sysparm_fields=sys_id`,
      {
        method: "PATCH",
        headers,
        body: JSON.stringify({ short_description: `bare write ${i}`, priority: String(1 + (i % 5)) }),
      },
    );
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`PATCH answered ${response.status}`);
  }
}
const before = process.cpuUsage();
await Promise.all(Array.from({ length: Number(permitsText) }, loop));
const used = process.cpuUsage(before);
console.log(`cpu ${(used.user + used.system) / 1e6}`);
