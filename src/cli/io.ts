// What a subcommand may touch: its output streams and its environment. Tests pass their own.
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stdout.isTTY),
};

/** A subcommand: parses its own arguments and returns the process exit code. */
export type Subcommand = (args: string[], io: CliIo) => Promise<number>;

/** Exit code for usage errors, shared by every subcommand. */
export const EXIT_USAGE = 2;
