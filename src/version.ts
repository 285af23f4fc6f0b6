/** The daemon's version, reported by `tablesync version`, `GET /` and the default User-Agent. */
import { BUILD_COMMIT } from "./build_commit.ts";

export const VERSION = "0.1.0";

/** The commit the binary was built from ("dev" for a source checkout). */
export const COMMIT: string = BUILD_COMMIT;
