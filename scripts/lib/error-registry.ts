// Reads openapi/errors.yaml, the single registry of envelope error codes.
import { readFileSync } from "node:fs";
import { parse } from "yaml";

export interface ErrorEntry {
  code: number;
  name: string;
  http: number;
  meaning: string;
  appliesTo: string | string[];
  source: "document" | "designed";
}

export interface ErrorRegistry {
  signed: ErrorEntry[];
  keyed: ErrorEntry[];
}

export function readErrorRegistry(file: string): ErrorRegistry {
  const registry = parse(readFileSync(file, "utf8")) as ErrorRegistry;
  for (const variant of ["signed", "keyed"] as const) {
    const seen = new Set<number>();
    for (const entry of registry[variant]) {
      if (seen.has(entry.code)) throw new Error(`errors.yaml: duplicate ${variant} code ${entry.code}`);
      seen.add(entry.code);
    }
  }
  return registry;
}
