// Without pg installed, a sandbox asked for a PostgreSQL store says which package to install (a
// PeerDependencyMissingError from listen(), and `mop sandbox --store postgres://…` prints the
// npm line and exits 1): pg is an optional peer, the memory store's users never install it.
import { describe, expect, it, vi } from "vitest";
import { main } from "../../../src/cli/main.js";
import { MerchantOpenPlatformError, PeerDependencyMissingError } from "../../../src/errors.js";
import { createSandbox } from "../../../src/sandbox/index.js";

vi.mock("pg", () => {
  throw new Error("Cannot find package 'pg'");
});

describe("a PostgreSQL store without pg", () => {
  it("names the missing package and how to install it", async () => {
    const sandbox = createSandbox({ store: "postgres://127.0.0.1:1/none" });
    const failure = await sandbox.listen({ port: 0 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await sandbox.close();
    expect(failure).toBeInstanceOf(PeerDependencyMissingError);
    expect(failure).toBeInstanceOf(MerchantOpenPlatformError);
    expect(failure).toMatchObject({ peer: "pg" });
    expect((failure as Error).message).toMatch(/npm install pg@8/);
  });

  it("mop sandbox --store postgres://… exits 1 with the line to run", async () => {
    const out = { stdout: "", stderr: "" };
    const io = { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), isTTY: false, env: {} };
    expect(await main(["sandbox", "--store", "postgres://user:hunter2@127.0.0.1:1/none", "--port", "0", "--quiet"], io)).toBe(1);
    expect(out.stderr).toMatch(/mop sandbox: a PostgreSQL store needs the pg package: npm install pg@8/);
    expect(out.stderr).not.toContain("hunter2");
  });
});
