// The CPU-profile reader behind the validator benchmark's profile tables: self and inclusive
// time per frame, idle left out, recursion counted once, and only samples inside the window.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { frameKey, frameOwner, frameTimes } from "../../scripts/bench/lib/cpu-profile.js";

const dir = mkdtempSync(join(tmpdir(), "cpu-profile-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const frame = (functionName: string, url = "", lineNumber = 0) => ({ functionName, url, lineNumber });
// root → handle (app) → lookupRoute (EOV) → pathToRegexp → lookupRoute (recursion) ; root → (idle)
const nodes = [
  { id: 1, callFrame: frame("(root)"), children: [2, 6] },
  { id: 2, callFrame: frame("handle", "file:///app/src/sandbox/pipeline.ts", 9), children: [3] },
  { id: 3, callFrame: frame("lookupRoute", "file:///app/node_modules/express-openapi-validator/dist/middlewares/openapi.metadata.js", 56), children: [4] },
  { id: 4, callFrame: frame("pathToRegexp", "file:///app/node_modules/path-to-regexp/dist/index.js", 251), children: [5] },
  { id: 5, callFrame: frame("lookupRoute", "file:///app/node_modules/express-openapi-validator/dist/middlewares/openapi.metadata.js", 56), children: [] },
  { id: 6, callFrame: frame("(idle)"), children: [] },
];

function write(samples: number[], timeDeltas: number[]): string {
  const file = join(dir, `${samples.join("-")}.cpuprofile`);
  writeFileSync(file, JSON.stringify({ nodes, startTime: 1_000, endTime: 2_000, samples, timeDeltas }));
  return file;
}

describe("frameTimes", () => {
  it("charges each sample the time until the next one, to its frame and, once each, to its callers", () => {
    // Samples at 1010, 1020, 1040, 1070, 1110: weights 10, 20, 30, 40, 0 (the last has no successor).
    const times = frameTimes(write([2, 4, 5, 6, 3], [10, 10, 20, 30, 40]));
    const pipeline = "handle src/sandbox/pipeline.ts:10";
    const lookup = "lookupRoute express-openapi-validator/dist/middlewares/openapi.metadata.js:57";
    const compile = "pathToRegexp path-to-regexp/dist/index.js:252";
    expect(times.totalUs).toBe(60); // the (idle) sample's 40 µs left out
    expect(times.self.get(pipeline)).toBe(10);
    expect(times.self.get(compile)).toBe(20);
    expect(times.self.get(lookup)).toBe(30 + 0);
    // The recursive lookupRoute sample counts once for lookupRoute, not twice.
    expect(times.inclusive.get(lookup)).toBe(20 + 30);
    expect(times.inclusive.get(pipeline)).toBe(60);
    expect(times.inclusive.has("(idle)")).toBe(false);
    expect(times.owners.get(compile)).toBe("path-to-regexp");
    expect(times.owners.get(pipeline)).toBe("this package");
  });

  it("counts only the samples inside the window", () => {
    const times = frameTimes(write([2, 4, 5, 3], [10, 10, 20, 30]), { from: 1_015, to: 1_045 });
    // In the window: the samples at 1020 (pathToRegexp, 20 µs) and 1040 (lookupRoute, 30 µs).
    expect(times.totalUs).toBe(50);
    expect([...times.self.keys()].sort()).toEqual(["lookupRoute express-openapi-validator/dist/middlewares/openapi.metadata.js:57", "pathToRegexp path-to-regexp/dist/index.js:252"]);
  });
});

describe("frame names", () => {
  it("shortens paths to the package or this project, and names who owns a frame", () => {
    expect(frameKey(frame("escape", "file:///x/node_modules/path-to-regexp/dist/index.js", 22))).toBe("escape path-to-regexp/dist/index.js:23");
    expect(frameKey(frame("", "file:///x/src/sandbox/int64.ts", 0))).toBe("(anonymous) src/sandbox/int64.ts:1");
    expect(frameKey(frame("(garbage collector)"))).toBe("(garbage collector)");
    expect(frameOwner(frame("(garbage collector)"))).toBe("(garbage collector)");
    expect(frameOwner(frame("Hmac", "node:internal/crypto/hash", 160))).toBe("node (lib)");
    expect(frameOwner(frame("x", "file:///x/node_modules/@stoplight/prism-cli/dist/a.js"))).toBe("@stoplight/prism-cli");
    expect(frameOwner(frame("x", "file:///x/node_modules/express-openapi-validator/node_modules/content-type/index.js"))).toBe("content-type");
    expect(frameOwner(frame("RegExp: ^a"))).toBe("V8 / node (native)");
  });
});
