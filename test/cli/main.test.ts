// main() and the command table: one place turns a command's UsageError into exit code 2 and a
// missing optional peer into exit code 1 with the install line.
import { describe, expect, it, vi } from "vitest";
import { COMMANDS, type Command } from "../../src/cli/commands.js";
import { MissingPeerError, UsageError } from "../../src/cli/errors.js";
import type { CliIo } from "../../src/cli/io.js";
import { main, runCommand } from "../../src/cli/main.js";

function capture(env: Record<string, string> = {}) {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = { stdout: (text) => void (out.stdout += text), stderr: (text) => void (out.stderr += text), isTTY: false, env };
  return { out, io };
}

const failing = (error: Error): Command => ({ name: "demo", summary: "", run: () => Promise.reject(error) });

describe("mop", () => {
  it("lists every command of the table in --help, once, in table order", async () => {
    const { out, io } = capture();
    expect(await main(["--help"], io)).toBe(0);
    const listed = [...out.stdout.matchAll(/^ {2}(\w+) {2,}/gm)].map((m) => m[1]);
    expect(listed).toEqual(COMMANDS.map((command) => command.name));
    expect(new Set(listed).size).toBe(COMMANDS.length);
  });

  it("answers no command with the help and exit 2, an unknown one with exit 2", async () => {
    const none = capture();
    expect(await main([], none.io)).toBe(2);
    expect(none.out.stdout).toContain("Usage: mop <command>");
    const unknown = capture();
    expect(await main(["frobnicate"], unknown.io)).toBe(2);
    expect(unknown.out.stderr).toMatch(/^mop: unknown command "frobnicate"\n/);
  });

  it.each([
    ["the --help pointer by default", new UsageError("--x is required"), 'mop demo: --x is required\nRun "mop demo --help" for the options.\n'],
    ["nothing after", new UsageError("cannot listen", { after: "" }), "mop demo: cannot listen\n"],
    ["the whole help", new UsageError("Unknown option '--y'", { after: "HELP TEXT\n" }), "mop demo: Unknown option '--y'\n\nHELP TEXT\n"],
  ])("reports a UsageError with %s and exits 2", async (_name, error, stderr) => {
    const { out, io } = capture();
    expect(await runCommand(failing(error), [], io)).toBe(2);
    expect(out.stderr).toBe(stderr);
    expect(out.stdout).toBe("");
  });

  it("reports a missing optional peer with the install line and exits 1", async () => {
    const { out, io } = capture();
    expect(await runCommand(failing(new MissingPeerError("sandbox", "express")), [], io)).toBe(1);
    expect(out.stderr).toMatch(/^mop sandbox: needs the package "express".*\n.*\n {2}npm install --save-dev express@\S+ express-openapi-validator@\S+(?: \S+@\S+)*\n$/);
  });

  it("lets any other error through: a bug is not a usage problem", async () => {
    const { io } = capture();
    await expect(runCommand(failing(new TypeError("boom")), [], io)).rejects.toThrow("boom");
  });

  it("gives commands the environment through io.env only, never process.env", async () => {
    vi.stubEnv("MOP_APP_SECRET", "from-process-env");
    try {
      const args = ["check", "--app-key", "k", "--base-url", "http://127.0.0.1:1"];
      const without = capture();
      expect(await main(args, without.io)).toBe(2);
      expect(without.out.stderr).toContain("--app-secret is required");
      const given = capture({ MOP_APP_SECRET: "from-io-env" });
      expect(await main(args, given.io)).toBe(2);
      expect(given.out.stderr).toMatch(/^mop check: cannot reach http:\/\/127\.0\.0\.1:1/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
