// Entry point of `mop`: finds the command in the table, answers --help and --version, and turns
// the commands' UsageError and MissingPeerError into their message and exit code.
import { packageVersion } from "../util/package-root.js";
import { COMMANDS, type Command } from "./commands.js";
import { MissingPeerError, UsageError } from "./errors.js";
import { EXIT_USAGE, processIo, type CliIo } from "./io.js";
import { missingPeerMessage } from "./peers.js";

function usage(): string {
  const rows = COMMANDS.map((command) => `  ${command.name.padEnd(10)} ${command.summary}`);
  return [
    "Usage: mop <command> [options]",
    "",
    "The Merchant Open Platform contract package.",
    "",
    "Commands:",
    ...rows,
    "",
    "Options:",
    "  -h, --help     show this help (mop <command> --help for a command's options)",
    "  -v, --version  print the package version",
    "",
  ].join("\n");
}

/** "mop sign: --app-key is required" and what the error says follows it (by default, where the options are). */
function usageErrorText(command: Command, error: UsageError): string {
  const after = error.after === undefined ? `Run "mop ${command.name} --help" for the options.\n` : error.after === "" ? "" : `\n${error.after}`;
  return `mop ${command.name}: ${error.message}\n${after}`;
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    io.stdout(usage());
    return first === undefined ? EXIT_USAGE : 0;
  }
  if (first === "-v" || first === "--version") {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === first);
  if (!command) {
    io.stderr(`mop: unknown command "${first}"\n\n${usage()}`);
    return EXIT_USAGE;
  }
  return runCommand(command, rest, io);
}

/** Runs one command of the table (or a test's own instance of one): its exit code, errors reported. */
export async function runCommand(command: Command, args: string[], io: CliIo): Promise<number> {
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(usageErrorText(command, error));
      return EXIT_USAGE;
    }
    if (error instanceof MissingPeerError) {
      io.stderr(missingPeerMessage(error.command, error.peer));
      return 1;
    }
    throw error;
  }
}
