// `mop examples` writes the quick start's scripts into a project and never overwrites; a
// command whose optional peer is missing says what to install.
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { examplesCommand, shippedExamples } from "../../src/cli/examples.js";
import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { missingPeer, missingPeerMessage, serverPeers } from "../../src/cli/peers.js";
import { packageRoot } from "../../src/util/package-root.js";

const dir = mkdtempSync(join(tmpdir(), "mop-examples-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(): { io: CliIo; out: () => { stdout: string; stderr: string } } {
  let stdout = "";
  let stderr = "";
  return { io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTTY: false, env: {} }, out: () => ({ stdout, stderr }) };
}

describe("mop examples", () => {
  it("writes every shipped example into the folder, byte for byte", async () => {
    const target = join(dir, "first");
    const { io, out } = capture();
    expect(await examplesCommand([target], io)).toBe(0);
    expect(shippedExamples()).toEqual(["first-order.mjs", "receive-callbacks.mjs"]);
    for (const name of shippedExamples()) {
      expect(readFileSync(join(target, name), "utf8")).toBe(readFileSync(join(packageRoot(), "examples", name), "utf8"));
      expect(out().stdout).toContain(`wrote   `);
    }
    expect(out().stdout).toContain("Next: node");
  });

  it("keeps a file the user already has", async () => {
    const target = join(dir, "kept");
    await examplesCommand([target], capture().io);
    writeFileSync(join(target, "first-order.mjs"), "// mine\n");
    const { io, out } = capture();
    expect(await examplesCommand([target], io)).toBe(0);
    expect(readFileSync(join(target, "first-order.mjs"), "utf8")).toBe("// mine\n");
    expect(out().stdout).toMatch(/kept {4}.*first-order\.mjs \(exists\)/);
  });

  it("never writes through a dangling symbolic link that points outside the folder", async () => {
    const target = join(dir, "dangling");
    const outside = join(dir, "outside");
    mkdirSync(target, { recursive: true });
    mkdirSync(outside, { recursive: true });
    const planted = join(outside, "planted.mjs");
    symlinkSync(planted, join(target, "first-order.mjs"));
    const { io, out } = capture();
    expect(await main(["examples", target], io)).toBe(1);
    expect(existsSync(planted)).toBe(false);
    expect(lstatSync(join(target, "first-order.mjs")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(target, "first-order.mjs"))).toBe(planted);
    expect(out().stderr).toMatch(/first-order\.mjs is a symbolic link; nothing is written through it/);
    // The other example is still written, as a regular file.
    expect(lstatSync(join(target, "receive-callbacks.mjs")).isFile()).toBe(true);
    expect(out().stdout).not.toContain("Next:");
  });

  it("leaves a file a symbolic link points at untouched", async () => {
    const target = join(dir, "linked");
    mkdirSync(target, { recursive: true });
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "precious\n");
    symlinkSync(victim, join(target, "receive-callbacks.mjs"));
    const { io } = capture();
    expect(await examplesCommand([target], io)).toBe(1);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
  });

  it("as a process: a dangling link is refused with exit code 1 and nothing appears outside", () => {
    const target = join(dir, "process");
    mkdirSync(target, { recursive: true });
    const planted = join(dir, "planted-by-process.mjs");
    symlinkSync(planted, join(target, "receive-callbacks.mjs"));
    const run = spawnSync(process.execPath, ["--import", "tsx", "-e", `import("./src/cli/main.ts").then((m) => m.main(${JSON.stringify(["examples", target])})).then((code) => { process.exitCode = code; })`], {
      cwd: packageRoot(),
      env: { ...process.env, NODE_OPTIONS: "" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("receive-callbacks.mjs is a symbolic link");
    expect(existsSync(planted)).toBe(false);
    expect(readFileSync(join(target, "first-order.mjs"), "utf8")).toBe(readFileSync(join(packageRoot(), "examples", "first-order.mjs"), "utf8"));
  });

  it("refuses two folders and unknown options with exit code 2", async () => {
    const two = capture();
    expect(await main(["examples", "a", "b"], two.io)).toBe(2);
    expect(two.out().stderr).toContain("one target folder at most");
    const unknown = capture();
    expect(await main(["examples", "--force"], unknown.io)).toBe(2);
    expect(unknown.out().stderr).toContain("--force");
  });

  it("is listed by mop --help", async () => {
    const { io, out } = capture();
    expect(await main(["--help"], io)).toBe(0);
    expect(out().stdout).toMatch(/\n {2}examples +write the quick start's example scripts/);
  });
});

describe("optional peers", () => {
  it("come from package.json, with the exact versions the package is tested with", () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    expect(serverPeers()).toEqual({ express: manifest.devDependencies.express, "express-openapi-validator": manifest.devDependencies["express-openapi-validator"], pino: manifest.devDependencies.pino });
  });

  it("are recognised in Node's module-not-found error, other packages are not", () => {
    const error = (name: string) => Object.assign(new Error(`Cannot find package '${name}' imported from /x/dist/src/sandbox/app.js`), { code: "ERR_MODULE_NOT_FOUND" });
    expect(missingPeer(error("express"))).toBe("express");
    expect(missingPeer(error("express-openapi-validator"))).toBe("express-openapi-validator");
    expect(missingPeer(error("left-pad"))).toBeUndefined();
    expect(missingPeer(new Error("Cannot find package 'express'"))).toBeUndefined();
    expect(missingPeerMessage("sandbox", "express")).toMatch(/^mop sandbox: needs the package "express".*\n.*\n {2}npm install --save-dev express@\S+ express-openapi-validator@\S+ pino@\S+\n$/);
  });
});
