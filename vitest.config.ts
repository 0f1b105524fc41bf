// Three projects, so that the quick loop stays quick (`npm run test:unit`: no server, no process)
// and `npm test` still runs everything:
//   unit       no socket, no process: pure functions, the client over an injected fetch, the
//              specs read statically, type tests. Enforced by test/support/unit-isolation.ts.
//   http       real servers on 127.0.0.1: sandbox, proxy, checker, callbacks, hostile and fault
//              suites, Redis, browsers.
//   packaging  the package as a user gets it and the slow tools we did not write: pack and
//              install, the quick start, generators, Spectral, the docs site, Respect, Prism.
// A test file's project is decided by its folder under test/, unless it is listed by name (type
// tests, *.test-d.ts, are the unit project's wherever they are); a
// new folder lands in http until it is listed below. test/suite/projects.test.ts proves that
// every test file is run by exactly one project.
import { readdirSync } from "node:fs";
import { configDefaults, defineConfig } from "vitest/config";

export type ProjectName = "unit" | "http" | "packaging";

/** Folders under test/ whose files are unit tests, except the files listed in FILE_PROJECTS. */
export const UNIT_FOLDERS = ["callbacks", "client", "contract", "json", "signing", "suite", "versioning"];
/** Folders under test/ whose files are packaging tests, except the files listed in FILE_PROJECTS. */
export const PACKAGING_FOLDERS = ["docs", "examples", "package", "portability", "workflows"];
/** Files that belong elsewhere than their folder says. */
export const FILE_PROJECTS: Record<string, ProjectName> = {
  // Unit tests in server folders.
  "test/cli/sign.test.ts": "unit",
  "test/conformance/clock.test.ts": "unit",
  "test/conformance/selection-and-reports.test.ts": "unit",
  "test/proxy/request-target.test.ts": "unit",
  "test/sandbox/array-limits.test.ts": "unit",
  "test/sandbox/fixtures.test.ts": "unit",
  "test/sandbox/recorder.test.ts": "unit",
  // Real servers in unit folders.
  "test/callbacks/handler.test.ts": "http",
  "test/client/base-url.test.ts": "http",
  "test/client/direct-path.test.ts": "http",
  "test/client/envelope.test.ts": "http",
  "test/client/int64.test.ts": "http",
  "test/client/lossless-fetch.test.ts": "http",
  "test/client/paginate.test.ts": "http",
  "test/client/redirects-and-limits.test.ts": "http",
  "test/client/signing.test.ts": "http",
  "test/signing/redis-nonce-store.test.ts": "http",
  // Mocks a module away: run where every file has its own module graph.
  "test/signing/redis-peer-missing.test.ts": "http",
  // Tools we did not write, or our scripts run as commands.
  "test/contract/code-samples.test.ts": "packaging",
  "test/contract/spectral.test.ts": "packaging",
  "test/contract/third-party-readers.test.ts": "packaging",
  "test/versioning/release-gate.test.ts": "packaging",
};

const TEST_FILES = "**/*.test.ts";
const TYPE_TEST_FILES = "test/**/*.test-d.ts";
const filesOf = (project: ProjectName) => Object.keys(FILE_PROJECTS).filter((file) => FILE_PROJECTS[file] === project);
const inFolders = (folders: string[]) => folders.map((folder) => `test/${folder}/${TEST_FILES}`);
// The http project takes every other folder, listed when the config loads: a glob that says
// "any folder but these" is not one the glob libraries agree on.
const otherFolders = readdirSync(new URL("./test", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !UNIT_FOLDERS.includes(entry.name) && !PACKAGING_FOLDERS.includes(entry.name))
  .map((entry) => entry.name);

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [...inFolders(UNIT_FOLDERS), ...filesOf("unit")],
          exclude: [...configDefaults.exclude, ...filesOf("http"), ...filesOf("packaging")],
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
          include: [`test/*.test.ts`, ...inFolders(otherFolders), ...filesOf("http")],
          exclude: [...configDefaults.exclude, ...filesOf("unit"), ...filesOf("packaging")],
        },
      },
      {
        extends: true,
        test: {
          name: "packaging",
          // One npm pack per run, shared by the tests that install the package (test/support/packed-tarball.ts).
          globalSetup: ["./test/support/packed-tarball.setup.ts"],
          include: [...inFolders(PACKAGING_FOLDERS), ...filesOf("packaging")],
          exclude: [...configDefaults.exclude, ...filesOf("unit"), ...filesOf("http")],
        },
      },
    ],
  },
});
