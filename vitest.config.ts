// Three projects, so that the quick loop stays quick (`npm run test:unit`: no server, no process)
// and `npm test` still runs everything. A test file's name says its project:
//   *.unit.test.ts  unit       no socket, no process: pure functions, the client over an injected
//                              fetch, the specs read statically. Enforced by
//                              test/support/unit-isolation.ts. Type tests (*.test-d.ts) are
//                              type-checked here too, wherever they live.
//   *.test.ts       http       (any other test file) real servers on 127.0.0.1: sandbox, proxy,
//                              checker, callbacks, hostile and fault suites, Redis, browsers.
//   *.pack.test.ts  packaging  the package as a user gets it and the slow tools we did not write:
//                              pack and install, the quick start, generators, Spectral, the docs
//                              site, Respect, Prism.
// Folders mirror src/ (test/<part>/ for src/<part>/), shared helpers are in test/support/; the
// folder no longer decides the project (docs/decisions.md, "Test projects").
// test/suite/projects.unit.test.ts proves that every test file is run by exactly one project.
import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

export type ProjectName = "unit" | "http" | "packaging";

/** The file name endings that choose a project; any other *.test.ts is http. */
export const PROJECT_SUFFIXES: Readonly<Record<Exclude<ProjectName, "http">, string>> = { unit: ".unit.test.ts", packaging: ".pack.test.ts" };

const UNIT_FILES = `test/**/*${PROJECT_SUFFIXES.unit}`;
const PACKAGING_FILES = `test/**/*${PROJECT_SUFFIXES.packaging}`;
const TYPE_TEST_FILES = "test/**/*.test-d.ts";

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Most http and packaging files wait on sockets and child processes (servers, npm, browsers),
    // so on a 2-core machine one worker (vitest's default there: cores - 1) leaves a core idle
    // much of the time; three keep both busy (docs/decisions.md, "Test projects").
    maxWorkers: Math.max(availableParallelism() - 1, 3),
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [UNIT_FILES],
          setupFiles: ["./test/support/unit-isolation.ts"],
          // Unit files share their workers and modules (half the CPU time of a fresh worker per
          // file); what a test changes globally through vi is put back after it.
          isolate: false,
          restoreMocks: true,
          unstubGlobals: true,
          unstubEnvs: true,
          typecheck: { enabled: true, include: [TYPE_TEST_FILES], tsconfig: "./tsconfig.type-tests.json" },
        },
      },
      {
        extends: true,
        test: {
          name: "http",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, UNIT_FILES, PACKAGING_FILES],
          // Like unit: a worker keeps the sandbox's modules loaded from one file to the next
          // (importing them afresh per file was 40 % of this project's time); each file starts
          // its own servers, and what a test changes through vi is put back after it.
          isolate: false,
          restoreMocks: true,
          unstubGlobals: true,
          unstubEnvs: true,
        },
      },
      {
        extends: true,
        test: {
          name: "packaging",
          include: [PACKAGING_FILES],
        },
      },
    ],
  },
});
