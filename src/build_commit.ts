/** The commit of a compiled binary; `deno task compile` rewrites this file for the build and restores it after. */
export const BUILD_COMMIT: string = "dev";
