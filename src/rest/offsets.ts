/** `/connectors/<name>/offsets` (KIP-875): read, alter and reset offsets; changes only while STOPPED. */
import type { Herder } from "../runtime/herder.ts";
import { ConnectRestError } from "../runtime/herder/connect_rest_error.ts";
import type { Router } from "./router.ts";
import { json, readJson } from "./responses.ts";

export function offsetRoutes(router: Router, herder: Herder): void {
  router.add("GET", "/connectors/:name/offsets", async (_r, p) => json(await herder.offsets(p.name)));

  router.add("PATCH", "/connectors/:name/offsets", async (req, p) => {
    herder.status(p.name);
    const body = await readJson(req) as { offsets?: unknown };
    if (
      typeof body !== "object" || body === null || !Array.isArray(body.offsets) || body.offsets.length === 0
    ) {
      throw new ConnectRestError(
        400,
        "Partitions / offsets need to be provided for an alter offsets request",
      );
    }
    await herder.alterOffsets(p.name, body.offsets as { partition: unknown; offset: unknown }[]);
    return json({ message: "The offsets for this connector have been altered successfully" });
  });

  router.add("DELETE", "/connectors/:name/offsets", async (_r, p) => {
    await herder.resetOffsets(p.name);
    return json({ message: "The offsets for this connector have been reset successfully" });
  });
}
