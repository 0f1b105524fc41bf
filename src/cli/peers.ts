// The server-side libraries are optional peer dependencies (README, "Install footprint"): a
// client-only project does not install them. A command that needs one and cannot load it says
// which packages to install instead of failing with a module-resolution stack trace.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../util/package-root.js";

interface Manifest {
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

/**
 * The optional peers from package.json, each with the exact version this release is tested
 * with (its devDependencies pin), else its peer range.
 */
/** Optional peers that only one option needs (ioredis: --nonce-store redis://…, pg: --store postgres://…; each says so itself). */
const OPTION_PEERS = new Set(["ioredis", "pg"]);

export function serverPeers(): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as Manifest;
  const peers: Record<string, string> = {};
  for (const [name, range] of Object.entries(manifest.peerDependencies ?? {})) {
    if (OPTION_PEERS.has(name)) continue;
    if (manifest.peerDependenciesMeta?.[name]?.optional) peers[name] = manifest.devDependencies?.[name] ?? range;
  }
  return peers;
}

/** The optional peer a failed import was looking for, if that is why it failed. */
export function missingPeer(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== "ERR_MODULE_NOT_FOUND" || typeof message !== "string") return undefined;
  const wanted = /Cannot find package '([^']+)'/.exec(message)?.[1];
  return wanted !== undefined && wanted in serverPeers() ? wanted : undefined;
}

/** What to tell a user whose project lacks a server-side peer. */
export function missingPeerMessage(command: string, missing: string): string {
  const install = Object.entries(serverPeers())
    .map(([name, version]) => `${name}@${version}`)
    .join(" ");
  return (
    `mop ${command}: needs the package "${missing}", which is not installed.\n` +
    "The sandbox's server libraries are optional peer dependencies, so that a project using only the client does not install them. Install them with:\n" +
    `  npm install --save-dev ${install}\n`
  );
}
