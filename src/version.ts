/** The daemon's version, reported by `tablesync version`, `GET /` and the default User-Agent. */
export const VERSION = "0.1.0";

/**
 * The commit the binary was built from. `deno task compile` stamps it through TABLESYNC_COMMIT;
 * a source checkout reports "dev".
 */
export const COMMIT: string = (() => {
  try {
    return Deno.env.get("TABLESYNC_COMMIT") ?? "dev";
  } catch {
    return "dev";
  }
})();
