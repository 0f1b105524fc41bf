// Reading a V8 CPU profile (`node --cpu-prof`): time per frame, self and inclusive, within a
// window of the monotonic clock (the profile's timestamps are CLOCK_MONOTONIC microseconds, as
// process.hrtime is), so that start-up and warm-up can be left out.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FrameTimes {
  /** Microseconds of samples in the window (idle left out). */
  totalUs: number;
  /** Frame key → µs spent in the frame itself. */
  self: Map<string, number>;
  /** Frame key → µs spent in the frame or anything it called (recursion counted once). */
  inclusive: Map<string, number>;
  /** Frame key → who owns it (frameOwner). */
  owners: Map<string, string>;
}

/** "name file:line" with paths shortened to the package (or this project's) relative path. */
export function frameKey(frame: ProfileNode["callFrame"]): string {
  const url = frame.url.replace(/^file:\/\//, "");
  const at = url.lastIndexOf("node_modules/");
  const where = at >= 0 ? url.slice(at + "node_modules/".length) : url.replace(/^.*?\/(src|scripts|dist)\//, "$1/");
  return `${frame.functionName || "(anonymous)"}${where ? ` ${where}:${frame.lineNumber + 1}` : ""}`;
}

/** Who owns a frame: an npm package (the innermost node_modules folder), node itself, or this project. */
export function frameOwner(frame: ProfileNode["callFrame"]): string {
  const url = frame.url.replace(/^file:\/\//, "");
  if (url === "") return frame.functionName.startsWith("(") ? frame.functionName : "V8 / node (native)";
  if (url.startsWith("node:")) return "node (lib)";
  const at = url.lastIndexOf("node_modules/");
  const where = at >= 0 ? url.slice(at + "node_modules/".length) : url.replace(/^.*?\/(src|scripts|dist)\//, "$1/");
  const parts = where.split("/");
  if (where.startsWith("src/") || where.startsWith("dist/") || where.startsWith("scripts/")) return "this package";
  return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? where);
}

export function frameTimes(file: string, windowUs?: { from: number; to: number }): FrameTimes {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keys = new Map(profile.nodes.map((node) => [node.id, frameKey(node.callFrame)]));
  const owners = new Map(profile.nodes.map((node) => [frameKey(node.callFrame), frameOwner(node.callFrame)]));
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalUs = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    // A sample stands for the time until the next one.
    const weight = profile.timeDeltas[i + 1] ?? 0;
    if (windowUs && (time < windowUs.from || time > windowUs.to)) continue;
    const id = profile.samples[i] as number;
    const key = keys.get(id) ?? "?";
    if (key.startsWith("(idle)")) continue;
    totalUs += weight;
    self.set(key, (self.get(key) ?? 0) + weight);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = keys.get(at) ?? "?";
      if (seen.has(k) || !byId.has(at)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + weight);
    }
  }
  return { totalUs, self, inclusive, owners };
}
