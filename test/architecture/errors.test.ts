// Every error class the package exposes descends from the one root (src/errors.ts) and says
// its own name, so callers can branch on classes. The walk covers every public entry point
// (src/index.ts, src/*/index.ts) and every part's errors.ts; a source scan covers the classes no
// module exports.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { MerchantOpenPlatformError } from "../../src/errors.js";

const SRC = join(import.meta.dirname, "../../src");

/** A sample construction of each error class, by class name: a new class needs a line here. */
const SAMPLES: Record<string, (Class: new (...args: never[]) => Error) => Error> = {
  MerchantOpenPlatformError: (C) => new (C as unknown as new (m: string) => Error)("m"),
  ApiError: (C) => new (C as unknown as new (i: object) => Error)({ code: 300001, message: "m", httpStatus: 404, operationId: "getOrder", entry: undefined }),
  NetworkError: (C) => new (C as unknown as new (i: object) => Error)({ method: "GET", url: "http://127.0.0.1/", cause: new Error("refused") }),
  TimeoutError: (C) => new (C as unknown as new (i: object) => Error)({ method: "GET", url: "http://127.0.0.1/", timeoutMs: 1 }),
  RedirectError: (C) => new (C as unknown as new (i: object) => Error)({ method: "GET", url: "http://127.0.0.1/", httpStatus: 302, location: "" }),
  ResponseTooLargeError: (C) => new (C as unknown as new (i: object) => Error)({ method: "GET", url: "http://127.0.0.1/", httpStatus: 200, limitBytes: 1 }),
  UnexpectedResponseError: (C) => new (C as unknown as new (i: object) => Error)({ reason: "not JSON", httpStatus: 200, body: "" }),
  JsonStructureError: (C) => new (C as unknown as new (p: string, n: number, d: object) => Error)("too-deep", 0, { limit: 1 }),
  CheckFailure: (C) => new (C as unknown as new (d: object) => Error)({ message: "m", expected: "e", rule: "r" }),
  RefusalError: (C) => new (C as unknown as new (n: string, e: object, m: string) => Error)("VALIDATION_FAILED", { code: 100001, http: 400 }, "m"),
  MissingPeerError: (C) => new (C as unknown as new (c: string, p: string) => Error)("sandbox", "express"),
};
/** Classes whose constructor takes (field, message). */
const FIELD_FIRST = new Set(["FieldConfigError", "ClientConfigError", "SigningInputError", "CallbackConfigError", "SandboxConfigError", "ProxyConfigError", "ServerConfigError", "PeerDependencyMissingError"]);

function construct(name: string, Class: new (...args: never[]) => Error): Error {
  const sample = SAMPLES[name];
  if (sample) return sample(Class);
  if (FIELD_FIRST.has(name)) return new (Class as unknown as new (f: string, m: string) => Error)("field", "m");
  return new (Class as unknown as new (m: string) => Error)("m");
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const SOURCES = filesUnder(SRC).filter((file) => file.endsWith(".ts"));
/** The public entry points and every part's errors module. */
const MODULES = SOURCES.filter((file) => /^(index|errors)\.ts$/.test(relative(SRC, file).split("/").slice(-1)[0]!) && relative(SRC, file).split("/").length <= 2);

async function exportedErrorClasses(): Promise<Map<string, { Class: new (...args: never[]) => Error; from: string[] }>> {
  const found = new Map<string, { Class: new (...args: never[]) => Error; from: string[] }>();
  for (const file of MODULES) {
    const exports = (await import(file)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value !== "function" || !(value.prototype instanceof Error || value === Error)) continue;
      const entry = found.get(name) ?? { Class: value as new (...args: never[]) => Error, from: [] };
      // One name, one class: a second class exported under the same name is the bug this guards.
      expect(value, `${name} from ${relative(SRC, file)} is another class than from ${entry.from.join(", ")}`).toBe(entry.Class);
      entry.from.push(relative(SRC, file));
      found.set(name, entry);
    }
  }
  return found;
}

describe("one root error class", () => {
  it("walks the public entry points and every errors.ts", () => {
    expect(MODULES.map((file) => relative(SRC, file))).toEqual(expect.arrayContaining(["index.ts", "errors.ts", "client/index.ts", "signing/index.ts", "sandbox/index.ts", "cli/errors.ts"]));
  });

  it("every exported error class extends MerchantOpenPlatformError and has its own name", async () => {
    const classes = await exportedErrorClasses();
    expect(classes.size).toBeGreaterThan(15);
    for (const [name, { Class }] of classes) {
      const error = construct(name, Class);
      expect(error, name).toBeInstanceOf(Class);
      expect(error, `${name} must extend MerchantOpenPlatformError`).toBeInstanceOf(MerchantOpenPlatformError);
      expect(error.name, `${name} must set its own name`).toBe(name);
      expect(error.message, name).not.toBe("");
    }
  });

  it("the root is exported from the package root and from each part's index", async () => {
    for (const file of MODULES.filter((f) => f.endsWith("index.ts"))) {
      const exports = (await import(file)) as Record<string, unknown>;
      expect(exports.MerchantOpenPlatformError, relative(SRC, file)).toBe(MerchantOpenPlatformError);
    }
  });

  it("no class in src extends a built-in error directly, except the root and the marked JSON errors", () => {
    const direct = SOURCES.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/class (\w+) extends (Error|TypeError|RangeError|SyntaxError|ReferenceError)\b/g)].map((m) => `${m[1]} (${relative(SRC, file)})`),
    );
    expect(direct.sort()).toEqual(["JsonStructureError (json/structure.ts)", "JsonValueError (json/errors.ts)", "MerchantOpenPlatformError (errors.ts)"]);
  });

  it("every part's config error is a FieldConfigError naming its field, exported from the package root", async () => {
    const root = (await import("../../src/index.js")) as Record<string, unknown>;
    const { FieldConfigError } = await import("../../src/errors.js");
    expect(root.FieldConfigError).toBe(FieldConfigError);
    const classes = await exportedErrorClasses();
    const configErrors = ["ClientConfigError", "SigningInputError", "CallbackConfigError", "SandboxConfigError", "ProxyConfigError", "ServerConfigError"];
    for (const name of configErrors) {
      const entry = classes.get(name);
      expect(entry, `${name} is exported`).toBeDefined();
      const error = new (entry?.Class as unknown as new (field: string, message: string) => Error & { field?: string })("server.maxConnections", "must be a positive integer");
      expect(error, name).toBeInstanceOf(FieldConfigError);
      expect(error.field, name).toBe("server.maxConnections");
      expect(error.message, name).toBe("must be a positive integer");
      expect(error.name, name).toBe(name);
    }
  });

  it("instanceof stays exact for subclasses and for values that are not errors", async () => {
    const { ApiError, ClientConfigError } = await import("../../src/client/index.js");
    const { JsonStructureError, parseJsonLossless } = await import("../../src/json/index.js");
    const config = new ClientConfigError("appSecret", "m");
    expect(config instanceof ApiError).toBe(false);
    expect(new Error("plain") instanceof MerchantOpenPlatformError).toBe(false);
    for (const value of [null, undefined, 0, "MerchantOpenPlatformError", {}]) expect(value instanceof MerchantOpenPlatformError).toBe(false);
    let thrown: unknown;
    try {
      parseJsonLossless('{"a":1,"a":2}');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(JsonStructureError);
    expect(thrown).toBeInstanceOf(SyntaxError);
    expect(thrown).toBeInstanceOf(MerchantOpenPlatformError);
  });
});
