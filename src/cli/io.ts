// What a command may touch: its output streams and its environment. main() passes the
// process's; tests pass their own, so no command reads process.env or writes to the console.
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
  /** Environment variables (MOP_APP_SECRET, MOP_API_KEY, ...). */
  env: Readonly<Record<string, string | undefined>>;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stdout.isTTY),
  env: process.env,
};

/**
 * A command: parses its own arguments and returns the process exit code. Arguments it cannot
 * use are a thrown UsageError (errors.ts), which main() reports and turns into EXIT_USAGE.
 */
export type Subcommand = (args: string[], io: CliIo) => Promise<number>;

/** Exit code for usage errors, shared by every command. */
export const EXIT_USAGE = 2;
