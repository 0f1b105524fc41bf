// Every test file is run by exactly one vitest project, the one its name says (*.unit.test.ts,
// *.pack.test.ts, any other *.test.ts http; type tests in unit): a file no project picks up
// would never run and never fail. The folders of test/ mirror those of src/. The files are found
// by walking test/, independently of the config's globs; which project runs each is asked of
// vitest itself, with the repository's own config.
import { existsSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVitest, type TestSpecification, type Vitest } from "vitest/node";
import { PROJECT_SUFFIXES, type ProjectName } from "../../vitest.config.js";
import { packageRoot } from "../../src/util/package-root.js";

const root = packageRoot();
// Anything a test runner could take for a test file, whichever runner and extension.
const LOOKS_LIKE_A_TEST = /\.(test|spec)(-d)?\.[cm]?[jt]sx?$/;

const testLikeFiles = (readdirSync(join(root, "test"), { recursive: true }) as string[])
  .map((file) => `test/${file.split(sep).join("/")}`)
  .filter((file) => LOOKS_LIKE_A_TEST.test(file))
  .sort();

/** The project the rule in vitest.config.ts gives a file. */
function projectByRule(file: string): ProjectName {
  // Type tests are compiled, never run: the unit project type-checks them wherever they live.
  if (file.endsWith(".test-d.ts")) return "unit";
  if (file.endsWith(PROJECT_SUFFIXES.unit)) return "unit";
  if (file.endsWith(PROJECT_SUFFIXES.packaging)) return "packaging";
  return "http";
}

let vitest: Vitest;
let specifications: TestSpecification[];
beforeAll(async () => {
  vitest = await createVitest("test", { watch: false, root, config: join(root, "vitest.config.ts") });
  specifications = await vitest.globTestSpecifications();
});
afterAll(() => vitest?.close());

const runsOf = (file: string) =>
  specifications
    .filter((specification) => relative(root, specification.moduleId).split(sep).join("/") === file)
    .map((specification) => ({ project: specification.project.name, typecheck: specification.pool === "typescript" }));

describe("vitest projects", () => {
  it("finds the test files (the walk itself works)", () => {
    expect(testLikeFiles.length).toBeGreaterThan(50);
    expect(testLikeFiles).toContain("test/suite/projects.unit.test.ts");
    expect(testLikeFiles.some((file) => file.endsWith(".test-d.ts"))).toBe(true);
  });

  it("runs every test file in exactly one project, the one the rule gives", () => {
    const wrong = testLikeFiles
      .map((file) => ({ file, expected: projectByRule(file), runs: runsOf(file).map((run) => run.project) }))
      .filter(({ expected, runs }) => runs.length !== 1 || runs[0] !== expected)
      .map(({ file, expected, runs }) =>
        runs.length === 0 ? `${file}: run by no project (name it *.test.ts or *.test-d.ts)` : `${file}: run by [${runs.join(", ")}], expected ${expected}`,
      );
    expect(wrong).toEqual([]);
  });

  it("type-checks the type tests in the unit project and runs nothing else there as types", () => {
    for (const file of testLikeFiles) {
      expect(runsOf(file), file).toEqual([{ project: projectByRule(file), typecheck: file.endsWith(".test-d.ts") }]);
    }
    expect(specifications.filter((specification) => specification.pool === "typescript").every((specification) => specification.project.name === "unit")).toBe(true);
  });

  it("sends a file to the project its name says, whatever its folder", () => {
    expect(projectByRule("test/some-new-part/thing.test.ts")).toBe("http");
    expect(projectByRule("test/signing/new.unit.test.ts")).toBe("unit");
    expect(projectByRule("test/sandbox/new.pack.test.ts")).toBe("packaging");
    const [unit, http, packaging] = ["unit", "http", "packaging"].map((name) => vitest.projects.find((p) => p.name === name)!);
    expect(unit!.matchesTestGlob(join(root, "test/signing/new.unit.test.ts"))).toBe(true);
    expect(http!.matchesTestGlob(join(root, "test/signing/new.unit.test.ts"))).toBe(false);
    expect(http!.matchesTestGlob(join(root, "test/signing/new.test.ts"))).toBe(true);
    expect(packaging!.matchesTestGlob(join(root, "test/sandbox/new.pack.test.ts"))).toBe(true);
    expect(http!.matchesTestGlob(join(root, "test/sandbox/new.pack.test.ts"))).toBe(false);
  });

  it("mirrors src/: a test folder for every part", () => {
    const parts = readdirSync(join(root, "src"), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(parts.filter((part) => !existsSync(join(root, "test", part)))).toEqual([]);
  });
});
