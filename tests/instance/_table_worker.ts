/// <reference lib="deno.worker" />
/**
 * Test worker standing for one connector's task: adopts the main thread's permit pools, builds its own
 * TableClient for the simulator, and runs `concurrency` loops of list calls until `requests` are done.
 */
import { importPermitPools, type PermitPoolTransfer } from "../../src/instance/permit_registry.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import type { InstanceSettings } from "../../src/instance/settings.ts";

interface Job {
  pools: PermitPoolTransfer;
  options: InstanceSettings;
  table: string;
  concurrency: number;
  requests: number;
}

self.onmessage = async (event: MessageEvent<Job>) => {
  const { pools, options, table, concurrency, requests } = event.data;
  importPermitPools(pools);
  const client = await TableClient.create(options);
  let started = 0;
  let rows = 0;
  const loop = async () => {
    while (started < requests) {
      started++;
      rows += (await client.list(table, { limit: 5, fields: ["sys_id"] })).rows.length;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, loop));
    self.postMessage({ ok: true, rows });
  } catch (error) {
    self.postMessage({ ok: false, error: String(error) });
  } finally {
    client.close();
  }
};
