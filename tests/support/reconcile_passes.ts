/** A source table's reconcile passes as integration tests drive them over the daemon's REST API. */
import type { DaemonProcess } from "./daemon_process.ts";
import { waitFor } from "./wait.ts";

/** `GET /connectors/<n>/tables`' `reconcile.last_pass` of a table. */
export interface LastPass {
  ended_at: string;
  rows_compared: number;
  repairs: Record<string, number>;
}

/** The table's last finished pass, or null before its first. */
export async function lastPass(
  daemon: DaemonProcess,
  connector: string,
  alias: string,
): Promise<LastPass | null> {
  const { body } = await daemon.request("GET", `/connectors/${connector}/tables`);
  return body.find((t: { alias: string }) => t.alias === alias)?.reconcile?.last_pass ?? null;
}

/**
 * The first pass of the table that ends from now on; `ask`: started over REST first (asked again while one
 * runs, 409).
 */
export async function nextPass(
  daemon: DaemonProcess,
  connector: string,
  alias: string,
  what: string,
  ask = true,
): Promise<LastPass> {
  const before = (await lastPass(daemon, connector, alias))?.ended_at ?? "";
  if (ask) {
    await waitFor(
      async () => {
        const { status, body } = await daemon.request(
          "POST",
          `/connectors/${connector}/tables/${alias}/reconcile`,
        );
        if (status !== 202 && status !== 409) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
        return status === 202;
      },
      90_000,
      `${what}: accepted`,
    );
  }
  return await waitFor(
    async () => {
      const last = await lastPass(daemon, connector, alias);
      return last !== null && last.ended_at > before ? last : null;
    },
    90_000,
    what,
  );
}

/** Repairs of a pass, all kinds together. */
export function repairCount(pass: LastPass): number {
  return Object.values(pass.repairs).reduce((a, b) => a + b, 0);
}
