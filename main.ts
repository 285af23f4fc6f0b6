#!/usr/bin/env -S deno run --allow-all
/** CLI entry point: see src/cli/ for the commands. */
import { runCli } from "./src/cli/main.ts";

if (import.meta.main) Deno.exit(await runCli(Deno.args));
