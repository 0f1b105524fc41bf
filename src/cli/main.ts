// Entry point of `mop`: dispatches to subcommands, answers --help and --version.
import { packageVersion } from "../util/package-root.js";
import { EXIT_USAGE, processIo, type CliIo, type Subcommand } from "./io.js";
import { missingPeer, missingPeerMessage } from "./peers.js";

interface SubcommandEntry {
  summary: string;
  load: () => Promise<Subcommand>;
}

const SUBCOMMANDS: Record<string, SubcommandEntry> = {};

/** Registers a subcommand; each lives in its own module and is loaded only when used. */
export function registerSubcommand(name: string, entry: SubcommandEntry): void {
  SUBCOMMANDS[name] = entry;
}

function usage(): string {
  const rows = Object.entries(SUBCOMMANDS).map(([name, entry]) => `  ${name.padEnd(10)} ${entry.summary}`);
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

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  await import("./commands.js");
  const [first, ...rest] = argv;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    io.stdout(usage());
    return first === undefined ? EXIT_USAGE : 0;
  }
  if (first === "-v" || first === "--version") {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  const entry = SUBCOMMANDS[first];
  if (!entry) {
    io.stderr(`mop: unknown command "${first}"\n\n${usage()}`);
    return EXIT_USAGE;
  }
  let run: Subcommand;
  try {
    run = await entry.load();
  } catch (error) {
    const missing = missingPeer(error);
    if (missing === undefined) throw error;
    io.stderr(missingPeerMessage(first, missing));
    return 1;
  }
  return run(rest, io);
}
