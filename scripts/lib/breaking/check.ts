// The release gate: generated/*.openapi.json against the newest releases/<version>/, judged
// by the version policy (docs/versioning.md): a breaking change needs a major version.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compareDocuments } from "./operations.js";
import { compareSemver, listReleases, majorMoved } from "./releases.js";
import type { Finding } from "./types.js";

export interface SpecComparison {
  name: string;
  /** new: no such document in the release; removed: released but no longer generated. */
  status: "compared" | "new" | "removed";
  findings: Finding[];
}

export interface CheckResult {
  version: string;
  release: string | undefined;
  specs: SpecComparison[];
  /** Policy violations other than breaking changes (version mismatches). */
  problems: string[];
  breaking: Finding[];
  /** Breaking changes are present but the major version moved, so they are allowed. */
  allowedByMajor: boolean;
  ok: boolean;
}

export interface CheckOptions {
  root: string;
  /** Compare with this release instead of the newest one. */
  release?: string;
  generatedDir?: string;
  releasesDir?: string;
}

const SUFFIX = ".openapi.json";

function bundles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(SUFFIX))
    .map((f) => f.slice(0, -SUFFIX.length))
    .sort();
}

const readJson = (file: string): Record<string, any> => JSON.parse(readFileSync(file, "utf8")) as Record<string, any>;

export function checkBreaking(options: CheckOptions): CheckResult {
  const generatedDir = options.generatedDir ?? join(options.root, "generated");
  const releasesDir = options.releasesDir ?? join(options.root, "releases");
  const version = (readJson(join(options.root, "package.json")) as { version: string }).version;
  const problems: string[] = [];
  const release = options.release ?? listReleases(releasesDir).at(-1);
  const current = bundles(generatedDir);

  for (const name of current) {
    const specVersion = readJson(join(generatedDir, name + SUFFIX)).info?.version;
    if (specVersion !== version) problems.push(`generated/${name}${SUFFIX}: info.version is ${specVersion}, package.json says ${version}`);
  }
  const specs: SpecComparison[] = [];
  if (release !== undefined) {
    const releaseDir = join(releasesDir, release);
    if (!existsSync(releaseDir)) problems.push(`releases/${release}/ does not exist`);
    else if (compareSemver(version, release) < 0) problems.push(`package.json version ${version} is older than the release ${release}`);
    const released = bundles(releaseDir);
    for (const name of current) {
      if (!released.includes(name)) specs.push({ name, status: "new", findings: [] });
      else specs.push({ name, status: "compared", findings: compareDocuments(readJson(join(releaseDir, name + SUFFIX)), readJson(join(generatedDir, name + SUFFIX))) });
    }
    for (const name of released.filter((n) => !current.includes(n))) {
      specs.push({ name, status: "removed", findings: [{ level: "breaking", rule: "document-removed", where: name, message: `the ${name} API was released in ${release} and is no longer generated` }] });
    }
  }
  const breaking = specs.flatMap((s) => s.findings.filter((f) => f.level === "breaking"));
  const allowedByMajor = breaking.length > 0 && release !== undefined && majorMoved(release, version);
  return { version, release, specs, problems, breaking, allowedByMajor, ok: problems.length === 0 && (breaking.length === 0 || allowedByMajor) };
}

const MARK = { breaking: "✗", warning: "!", info: "+" } as const;

export function formatReport(result: CheckResult): string {
  const lines: string[] = [];
  if (result.release === undefined) lines.push(`No release under releases/ yet: nothing to compare (package ${result.version}).`);
  else lines.push(`Contract of package ${result.version} against release ${result.release}:`);
  for (const spec of result.specs) {
    if (spec.status === "new") {
      lines.push(`  ${spec.name}: new API, not in release ${result.release}`);
      continue;
    }
    const count = (level: Finding["level"]) => spec.findings.filter((f) => f.level === level).length;
    lines.push(`  ${spec.name}: ${count("breaking")} breaking, ${count("warning")} warnings, ${count("info")} additions`);
    for (const f of spec.findings) lines.push(`    ${MARK[f.level]} [${f.rule}] ${f.where}: ${f.message}`);
  }
  for (const problem of result.problems) lines.push(`✗ ${problem}`);
  if (result.allowedByMajor) lines.push(`Breaking changes allowed: the major version moved (${result.release} → ${result.version}). List them in CHANGELOG.md.`);
  else if (result.breaking.length > 0) {
    lines.push(
      `✗ ${result.breaking.length} breaking change(s) without a major version bump. Make the change compatible, or release a new major ` +
        `version (docs/versioning.md).`,
    );
  }
  if (result.ok) lines.push("check:breaking passed.");
  return lines.join("\n");
}
