// Released versions: releases/<version>/<name>.openapi.json, one folder per release.
import { existsSync, readdirSync } from "node:fs";

export interface Semver {
  major: number;
  minor: number;
  patch: number;
  prerelease: string;
}

export function parseSemver(text: string): Semver | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4] ?? "" };
}

/** Semver precedence; prerelease parts are compared as plain strings, enough for our tags. */
export function compareSemver(a: string, b: string): number {
  const [x, y] = [parseSemver(a), parseSemver(b)];
  if (!x || !y) throw new Error(`not a semantic version: ${!x ? a : b}`);
  for (const key of ["major", "minor", "patch"] as const) if (x[key] !== y[key]) return x[key] - y[key];
  if (x.prerelease === y.prerelease) return 0;
  if (!x.prerelease) return 1;
  if (!y.prerelease) return -1;
  return x.prerelease < y.prerelease ? -1 : 1;
}

/** Every folder under releases/ named by a version, oldest first. */
export function listReleases(releasesDir: string): string[] {
  if (!existsSync(releasesDir)) return [];
  return readdirSync(releasesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && parseSemver(e.name) !== undefined)
    .map((e) => e.name)
    .sort(compareSemver);
}

/** A breaking change is allowed only when the major version moved past the release's. */
export function majorMoved(released: string, current: string): boolean {
  return parseSemver(current)!.major > parseSemver(released)!.major;
}
