// Every path and method named in the source document exists in the bundled specs with the
// source's parameters; anything else is marked x-source: designed.
import { describe, expect, it } from "vitest";
import { sourceOperations } from "./source-document.js";
import { deref, loadBundledSpec, type Spec } from "./spec-loader.js";

const specs: Record<"signed" | "keyed", Spec> = { signed: loadBundledSpec("signed"), keyed: loadBundledSpec("keyed") };
const operations = sourceOperations();

describe("the source document's operations", () => {
  it("are read from the source: 9 described and 1 key-based, 9 named only", () => {
    expect(operations.filter((op) => op.described && op.variant === "signed")).toHaveLength(9);
    expect(operations.filter((op) => op.variant === "keyed")).toHaveLength(1);
    expect(operations.filter((op) => !op.described)).toHaveLength(9);
  });

  it.each(operations.map((op) => [`${op.method.toUpperCase()} ${op.path} (${op.variant})`, op] as const))("%s exists with the source's parameters", (_label, op) => {
    const operation = specs[op.variant].paths?.[op.path]?.[op.method];
    expect(operation, `${op.method} ${op.path} is missing`).toBeDefined();
    const declared = (operation.parameters ?? []).map((p: unknown) => deref(specs[op.variant], p));
    for (const param of op.parameters) {
      const found = declared.find((p: any) => p.name === param.name && p.in === param.in);
      expect(found, `${param.in} parameter ${param.name}`).toBeDefined();
      expect(Boolean(found.required), `${param.name} required`).toBe(param.required);
      const schema = deref(specs[op.variant], found.schema);
      if (param.defaultValue !== undefined) expect(schema.default, `${param.name} default`).toBe(param.defaultValue);
      if (param.maximum !== undefined) expect(schema.maximum, `${param.name} maximum`).toBe(param.maximum);
    }
    if (!op.described) expect(operation["x-source"], "an operation the source only names is marked designed").toBe("designed");
    else expect(operation["x-source"]).toBeUndefined();
  });

  it.each(["signed", "keyed"] as const)("nothing else exists in the %s spec without x-source: designed", (variant) => {
    const known = new Set(operations.filter((op) => op.variant === variant).map((op) => `${op.method} ${op.path}`));
    const extra: string[] = [];
    for (const [path, item] of Object.entries<any>(specs[variant].paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (!operation?.operationId) continue;
        if (!known.has(`${method} ${path}`) && operation["x-source"] !== "designed") extra.push(`${method} ${path}`);
      }
    }
    for (const [name, item] of Object.entries<any>(specs[variant].webhooks ?? {})) {
      if (item.post?.["x-source"] !== "designed") extra.push(`webhook ${name}`);
    }
    expect(extra).toEqual([]);
  });

  it("signs every signed operation with all four headers together (ANDed)", () => {
    const spec = specs.signed;
    expect(spec.security).toEqual([{ AppKey: [], Timestamp: [], Nonce: [], Sign: [] }]);
    const headers = Object.values<any>(spec.components.securitySchemes).map((s) => s.name).sort();
    expect(headers).toEqual(["X-App-Key", "X-Nonce", "X-Sign", "X-Timestamp"]);
    for (const item of Object.values<any>(spec.paths)) {
      for (const operation of Object.values<any>(item)) expect(operation.security).toBeUndefined();
    }
  });

  it("offers the versioned and the unversioned base path", () => {
    // The local sandbox first, then the production template (https only).
    expect(specs.signed.servers.map((s: any) => s.url)).toEqual([
      "http://127.0.0.1:4010/open-api/v1",
      "http://127.0.0.1:4010/open-api",
      "https://{host}/open-api/v1",
      "https://{host}/open-api",
    ]);
    expect(specs.keyed.servers.map((s: any) => s.url)).toEqual(["http://127.0.0.1:4010/v1", "https://{host}/v1"]);
  });

  it("declares the payment and credit-approval callbacks as webhooks", () => {
    expect(Object.keys(specs.signed.webhooks)).toEqual(expect.arrayContaining(["paymentSucceeded", "memberCardApplicationApproved"]));
  });
});
