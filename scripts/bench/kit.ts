// npm run bench:kit: the server kit with a handler that answers a constant, against bare Express
// with the same handler (servers/kit-constant.ts), side by side: rounds alternate between the
// two so drift of the machine hits both alike; every request is freshly signed (bare Express
// ignores the headers) and every answer checked. Goal (issue 14): the kit ≥ 0.75 × bare Express.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { packageRoot } from "../../src/util/package-root.js";
import { runLoad, signedRequest } from "./lib/load.js";
import { machine, median, parseFlags, table, writeResults, type Cell } from "./lib/report.js";

const flags = parseFlags(process.argv.slice(2));
const duration = flags.duration ?? (flags.quick ? 2 : 4);
const rounds = flags.rounds ?? (flags.quick ? 2 : 4);
const GOAL = 0.75;

async function start(mode: "kit" | "bare"): Promise<{ origin: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(packageRoot(), "scripts", "bench", "servers", "kit-constant.ts"), mode], { stdio: ["ignore", "pipe", "inherit"] });
  const origin = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening (http:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`kit-constant.ts ${mode} exited (${code}): ${text}`)));
  });
  return { origin, child };
}

const request = { name: "listStores", method: "GET" as const, path: "/stores?merchantId=10001" };
const servers = { kit: await start("kit"), bare: await start("bare") };
const rows: Cell[][] = [];
const results: Record<string, unknown> = {};
try {
  for (const connections of [1, 20, 50]) {
    const rps: Record<"kit" | "bare", number[]> = { kit: [], bare: [] };
    const p50: Record<"kit" | "bare", number[]> = { kit: [], bare: [] };
    const ratios: number[] = [];
    for (const mode of ["kit", "bare"] as const) await runLoad({ origin: servers[mode].origin, basePath: "/open-api/v1", connections, durationSec: 1, requests: [signedRequest(request, "/open-api/v1")] });
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (["kit", "bare"] as const) : (["bare", "kit"] as const);
      const thisRound: Partial<Record<"kit" | "bare", number>> = {};
      for (const mode of order) {
        const result = await runLoad({ origin: servers[mode].origin, basePath: "/open-api/v1", connections, durationSec: duration, requests: [signedRequest(request, "/open-api/v1")] });
        if (result.good !== result.requests) throw new Error(`${mode}: ${result.requests - result.good} of ${result.requests} answers were not the success envelope (${JSON.stringify(result.statusCodes)})`);
        rps[mode].push(result.rps);
        p50[mode].push(result.latencyMs.p50);
        thisRound[mode] = result.rps;
      }
      ratios.push(thisRound.kit! / thisRound.bare!);
    }
    const ratio = median(ratios);
    results[`c${connections}`] = { rps, p50, ratios, ratio };
    rows.push([connections, Math.round(median(rps.kit)), Math.round(median(rps.bare)), ratio.toFixed(2), `${((1 / ratio - 1) * 100).toFixed(0)} %`, median(p50.kit).toFixed(2), median(p50.bare).toFixed(2), ratio >= GOAL ? "met" : "NOT met"]);
  }
} finally {
  for (const { child } of Object.values(servers)) child.kill("SIGTERM");
}
process.stdout.write(`${table(`Server kit (constant listStores handler) vs bare Express, ${rounds} alternating rounds of ${duration} s; goal kit ≥ ${GOAL} × bare`, ["connections", "kit req/s", "bare req/s", "kit ÷ bare", "kit overhead", "kit p50 ms", "bare p50 ms", "goal"], rows)}\n`);
process.stdout.write(`written ${writeResults("kit", { machine: machine(), duration, rounds, results })}\n`);
