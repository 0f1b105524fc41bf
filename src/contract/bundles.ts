// The bundled specs (generated/*.openapi.json), read from the package once per process. Every
// part that needs the contract at run time gets it here; nothing else reads these files.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../util/package-root.js";

export type SpecName = "signed" | "keyed" | "sandbox-control";

/** A bundled OpenAPI document, walked by JSON Pointer; typed loosely on purpose. */
export type OpenApiDocument = Record<string, any>;

const loaded = new Map<SpecName, OpenApiDocument>();

export function bundlePath(name: SpecName): string {
  return join(packageRoot(), "generated", `${name}.openapi.json`);
}

/** The bundled spec, parsed once. Shared: callers must not mutate it (clone it first). */
export function loadBundle(name: SpecName): OpenApiDocument {
  let document = loaded.get(name);
  if (!document) {
    document = JSON.parse(readFileSync(bundlePath(name), "utf8")) as OpenApiDocument;
    loaded.set(name, document);
  }
  return document;
}
