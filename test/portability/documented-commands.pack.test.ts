// The generator and Respect recipes of the shipped docs, run as written in a fresh project that
// installed the packed tarball: other-languages.md's TypeScript section (its ```sh lines in order,
// its files marked `// file: NAME`, then its `npx tsc`) and conformance.md's Respect recipe (the
// sandbox, the signing proxy, the example receiver and `npx redocly respect`, each on a free port
// instead of 4010, 4020 and 3000). The `npm install` lines of both are run as one install, with the
// same packages and versions, to spend the network and the disk once. The tarball is the run's
// one packed tarball (test/support/packed-tarball.ts), shared with the other packaging tests.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";
import { packedTarball } from "../support/packed-tarball.js";
import { StartedProcesses } from "../support/process.js";

const root = packageRoot();
const { npm_config_call: _call, npm_config_package: _package, ...inherited } = process.env;
const ENV = { ...inherited, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", npm_config_loglevel: "error", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };

function sh(line: string, cwd: string, timeout = 180_000, env: NodeJS.ProcessEnv = ENV): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile("sh", ["-c", line], { cwd, env, timeout, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${line} failed in ${cwd}:\n${error.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** The section of a guide under a `## ` heading, up to the next one. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}`);
  expect(start, `the guide has the section ${heading}`).toBeGreaterThan(0);
  const end = markdown.indexOf("\n## ", start + 4);
  return markdown.slice(start, end === -1 ? undefined : end);
}

/** Shell lines of its ```sh blocks (continuation lines joined), in order. */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
    block[1]!
      .replace(/\\\n\s*/g, "")
      .split("\n")
      .filter((line) => line.trim() !== ""),
  );
}

/** Code blocks whose first line is `// file: NAME`: NAME and the rest of the block. */
function files(markdown: string): Array<[string, string]> {
  return [...markdown.matchAll(/```\w+\n\/\/ file: (\S+)\n([\s\S]*?)```/g)].map((block) => [block[1]!, block[2]!]);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const installArgs = (line: string) => line.replace(/^npm install\s+/, "").split(/\s+/).filter((arg) => arg !== "");

let work: string;
let consumer: string;
let typescriptSection: string;
let respectLines: string[];
const processes = new StartedProcesses();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mop-doc-commands-"));
  const { tarball } = await packedTarball();

  consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }, null, 2));

  // The package as quickstart.md installs it (the sandbox's peers), then the guides' installs.
  const installed = join(consumer, "node_modules", "merchant-open-platform", "docs");
  const quickstartInstall = shellLines(readFileSync(join(root, "docs", "quickstart.md"), "utf8")).find((line) => line.startsWith("npm install merchant-open-platform "))!;
  await sh(`npm install --prefer-offline ${installArgs(quickstartInstall).map((arg) => (arg === "merchant-open-platform" ? tarball : arg)).join(" ")}`, consumer, 240_000);
  typescriptSection = section(readFileSync(join(installed, "other-languages.md"), "utf8"), "TypeScript generators");
  respectLines = shellLines(section(readFileSync(join(installed, "conformance.md"), "utf8"), "Workflows and Prism"));
  const devInstalls = [...shellLines(typescriptSection), ...respectLines].filter((line) => line.startsWith("npm install --save-dev "));
  expect(devInstalls.length, "each recipe says what to install").toBeGreaterThanOrEqual(3);
  const packages = [...new Set(devInstalls.flatMap((line) => installArgs(line).filter((arg) => arg !== "--save-dev")))];
  await sh(`npm install --prefer-offline --save-dev ${packages.join(" ")}`, consumer, 300_000);
}, 600_000);

afterAll(async () => {
  await processes.stopAll();
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

describe("the docs' recipes, run in a project that installed the packed tarball", () => {
  it("other-languages.md: the orval and hey-api commands generate, and the documented files compile", async () => {
    for (const [name, text] of files(typescriptSection)) {
      mkdirSync(dirname(join(consumer, name)), { recursive: true });
      writeFileSync(join(consumer, name), text);
    }
    const commands = shellLines(typescriptSection).filter((line) => !line.startsWith("npm install "));
    expect(commands).toEqual(expect.arrayContaining([expect.stringMatching(/^npx orval /), expect.stringMatching(/^npx openapi-ts /), expect.stringMatching(/^npx tsc /)]));
    for (const command of commands) await sh(command, consumer, 180_000);
    // The TypeScript the commands ran is the pinned 5.9, not whatever `npm i typescript` gives today.
    expect((await sh("npx tsc --version", consumer)).stdout).toMatch(/Version 5\.9\./);
  }, 400_000);

  it("conformance.md: Respect runs the shipped workflows through the signing proxy, green", async () => {
    const ports = { "4010": String(await freePort()), "4020": String(await freePort()), "3000": String(await freePort()) };
    const at = (line: string) => line.replace(/\b(4010|4020|3000)\b/g, (port) => ports[port as keyof typeof ports]);
    const find = (start: string) => {
      const line = respectLines.find((candidate) => candidate.startsWith(start));
      expect(line, `the recipe has a line starting with ${start}`).toBeDefined();
      return line!.replace(/\s+#.*$/, "");
    };
    await processes.startShell(`${at(find("npx mop sandbox "))} --port ${ports["4010"]}`, { cwd: consumer, env: ENV, ready: /Validators compiled/, timeoutMs: 60_000 });
    await processes.startShell(at(find("MOP_APP_SECRET=")), { cwd: consumer, env: ENV, ready: /mop proxy: http:\/\/127\.0\.0\.1:\d+ ->/, timeoutMs: 60_000 });
    const receiver = await processes.startShell(find("npx mop examples && node mop-examples/receive-callbacks.mjs"), { cwd: consumer, env: { ...ENV, PORT: ports["3000"] }, ready: /receiving callbacks on/, timeoutMs: 60_000 });
    const respect = await sh(at(find("npx redocly respect ")), consumer, 240_000).catch((error: Error) => ({ stdout: error.message, stderr: "" }));
    expect(respect.stdout, respect.stdout).not.toMatch(/failed in/);
    expect(respect.stdout).toMatch(/pay-order/);
    await expect.poll(receiver.output, { timeout: 15_000 }).toMatch(/verified payment\.succeeded/);
  }, 400_000);
});
