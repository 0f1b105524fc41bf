// docs/ids-and-int64.md and other-languages.md say what jq does to an id above 2^53: jq 1.6
// rounds it, 1.7 and later keep an integer literal they do not compute with, and the sed line
// the docs give reads the exact digits on any version. Run against the jq installed here (Debian's;
// .ci/run installs it): a missing jq skips locally and fails under CI.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";

const ANSWER = '{"code":0,"msg":"success","data":9007199254740993}';
let version: string | undefined;
try {
  version = execFileSync("jq", ["--version"], { encoding: "utf8" }).trim();
} catch {
  if (process.env.CI) throw new Error("jq is not installed: CI must have it (.ci/run installs it with apt)");
  console.warn("test/portability/jq.pack.test.ts: skipped because jq is not installed.");
}
const jq = (filter: string) => execFileSync("jq", [filter], { input: ANSWER, encoding: "utf8" }).trim();
const [major, minor] = (/jq-(\d+)\.(\d+)/.exec(version ?? "") ?? []).slice(1).map(Number);

describe.runIf(version !== undefined)(`jq (${version ?? "not installed"}) and ids above 2^53`, () => {
  it.runIf(major === 1 && minor! <= 6)("jq 1.6 rounds the id, as the docs say", () => {
    expect(jq(".data")).toBe("9007199254740992");
  });

  it.runIf(major! > 1 || minor! >= 7)("jq 1.7 and later keep the literal, and round once they compute", () => {
    expect(jq(".data")).toBe("9007199254740993");
    expect(jq(".data + 0")).not.toBe("9007199254740993");
  });

  it("the sed line from the docs reads the exact digits", () => {
    const docs = readFileSync(join(packageRoot(), "docs", "ids-and-int64.md"), "utf8");
    const script = /`sed -E '([^']+)'`/.exec(docs)![1]!;
    expect(execFileSync("sed", ["-E", script], { input: ANSWER, encoding: "utf8" }).trim()).toBe("9007199254740993");
  });
});
