/** The shape of a CLI command: its usage text and its action, which returns the exit code. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(args: string[]): Promise<number>;
}

export function wantsHelp(args: string[]): boolean {
  return args.includes("--help") || args.includes("-h");
}
