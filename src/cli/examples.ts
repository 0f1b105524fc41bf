// `mop examples [DIR]`: copies the quick start's example scripts out of the installed package
// into the user's project (default ./mop-examples), where they import the package by name.
// Existing files are never overwritten: a user may have edited them. Nothing is written through
// a symbolic link (a dangling one could point anywhere outside DIR): each file is created
// exclusively (O_CREAT|O_EXCL, which also fails on a symlink), after an lstat that names why.
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { packageRoot } from "../util/package-root.js";
import { UsageError } from "./errors.js";
import type { CliIo, Subcommand } from "./io.js";

const USAGE = `Usage: mop examples [DIR]

Writes the quick start's example scripts (docs/quickstart.md) into DIR (default ./mop-examples):
  receive-callbacks.mjs   receives and verifies callbacks (needs express)
  first-order.mjs         syncs a customer, creates an order and starts its payment
Files that already exist are left alone; a symbolic link in their place is refused (exit
code 1) and nothing is written through it. Run them with node from your project, e.g.
  node mop-examples/receive-callbacks.mjs

Options:
  -h, --help   show this help
`;

/** The example scripts shipped in the package, by file name. */
export function shippedExamples(): string[] {
  return readdirSync(join(packageRoot(), "examples"))
    .filter((name) => name.endsWith(".mjs"))
    .sort();
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

export const examplesCommand: Subcommand = async (args: string[], io: CliIo) => {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  if (parsed.values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (parsed.positionals.length > 1) throw new UsageError(`one target folder at most, got ${parsed.positionals.length}`);
  const target = resolve(parsed.positionals[0] ?? "mop-examples");
  const shown = relative(process.cwd(), target) || ".";
  try {
    mkdirSync(target, { recursive: true });
  } catch (error) {
    io.stderr(`mop examples: cannot create ${shown} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})\n`);
    return 1;
  }
  let refused = 0;
  for (const name of shippedExamples()) {
    const destination = join(target, name);
    const shownName = join(shown, name);
    const existing = lstatOrUndefined(destination);
    if (existing?.isSymbolicLink()) {
      refused++;
      io.stderr(`mop examples: ${shownName} is a symbolic link; nothing is written through it (remove it, or choose another folder)\n`);
      continue;
    }
    if (existing) {
      io.stdout(`kept    ${shownName} (exists)\n`);
      continue;
    }
    try {
      // "wx": created here or not at all; never follows a link put in its place meanwhile.
      writeFileSync(destination, readFileSync(join(packageRoot(), "examples", name)), { flag: "wx" });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST" && !lstatOrUndefined(destination)?.isSymbolicLink()) {
        io.stdout(`kept    ${shownName} (exists)\n`);
        continue;
      }
      refused++;
      io.stderr(`mop examples: cannot write ${shownName} (${code === "EEXIST" ? "a symbolic link appeared in its place" : (code ?? (error as Error).message)})\n`);
      continue;
    }
    io.stdout(`wrote   ${shownName}\n`);
  }
  if (refused > 0) return 1;
  io.stdout(`\nNext: node ${join(shown, "receive-callbacks.mjs")}, then node ${join(shown, "first-order.mjs")} (docs/quickstart.md).\n`);
  return 0;
};
