// Reads openapi/errors.yaml, the single registry of envelope error codes, and answers which
// codes each operation can return ("appliesTo").
import { readFileSync } from "node:fs";
import { parse } from "yaml";

/**
 * Where a code can be returned:
 * - a list of operationIds;
 * - "all-signed" / "all-keyed": every operation of that interface;
 * - "unrouted": requests that match no operation (unknown path, wrong method): the code belongs
 *   to the interface's envelope but to no operation's responses;
 * - "control": the sandbox's control API only (never in the public specs).
 */
export type AppliesTo = string[] | "all-signed" | "all-keyed" | "unrouted" | "control";

export interface ErrorEntry {
  code: number;
  name: string;
  http: number;
  meaning: string;
  appliesTo: AppliesTo;
  source: "document" | "designed";
}

export interface ErrorRegistry {
  signed: ErrorEntry[];
  keyed: ErrorEntry[];
}

export type Variant = keyof ErrorRegistry;

const KEYWORDS = new Set(["all-signed", "all-keyed", "unrouted", "control"]);

export function readErrorRegistry(file: string): ErrorRegistry {
  const registry = parse(readFileSync(file, "utf8")) as ErrorRegistry;
  for (const variant of ["signed", "keyed"] as const) {
    const seen = new Set<number>();
    for (const entry of registry[variant]) {
      if (seen.has(entry.code)) throw new Error(`errors.yaml: duplicate ${variant} code ${entry.code}`);
      seen.add(entry.code);
      const applies = entry.appliesTo;
      if (!Array.isArray(applies) && !KEYWORDS.has(applies)) {
        throw new Error(`errors.yaml: ${entry.name}: appliesTo must be a list of operationIds or one of ${[...KEYWORDS].join(", ")}`);
      }
      if (applies === "control" && variant === "keyed") throw new Error(`errors.yaml: ${entry.name}: the keyed interface has no control API`);
      if (Array.isArray(applies) && applies.length === 0) throw new Error(`errors.yaml: ${entry.name}: appliesTo is empty; say "control" or "unrouted"`);
    }
  }
  return registry;
}

/** The codes an operation of the interface can return, in registry order. */
export function codesOf(entries: readonly ErrorEntry[], variant: Variant, operationId: string): ErrorEntry[] {
  return entries.filter((entry) => {
    const applies = entry.appliesTo;
    if (Array.isArray(applies)) return applies.includes(operationId);
    return applies === `all-${variant}`;
  });
}

/** Codes of the public interface: every code but the control API's. */
export function publicCodes(entries: readonly ErrorEntry[]): ErrorEntry[] {
  return entries.filter((entry) => entry.appliesTo !== "control");
}

/** operationIds named in appliesTo lists that the interface does not have. */
export function unknownOperations(entries: readonly ErrorEntry[], operationIds: ReadonlySet<string>): string[] {
  return entries.flatMap((entry) => (Array.isArray(entry.appliesTo) ? entry.appliesTo.filter((id) => !operationIds.has(id)).map((id) => `${entry.name}: ${id}`) : []));
}
