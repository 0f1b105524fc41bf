// Fair to every conforming server: one whose clock is off is diagnosed once (not failed check by
// check), one slightly off is still judged right, an HTTPS-only server's callbacks reach a
// receiver serving TLS, and callbacks signed with another valid secret of the app verify. And
// the legitimate choices the checker once punished: ids that count up (every neighbour of an id
// exists) with app-user ids above 2^53, a partial implementation, a server written from the
// source without the contract's designed rules.
import { readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance, textReport, type ConformanceOptions, type ConformanceReport } from "../../src/conformance/index.js";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { startFaultyServer, type Fault, type FaultyServer, type ForwardedRequest } from "./faulty-server.js";
import { faultsFor } from "./faults.js";
import { stringifyJson } from "../../src/json/index.js";

const credentials = { appKey: "demo-app-key", appSecret: "demo-app-secret" };
const schedule = [50, 50, 100, 100, 200];
const started: Sandbox[] = [];

async function start(options: Parameters<typeof createSandbox>[0]): Promise<ListeningSandbox> {
  const sandbox = createSandbox({ allowInsecureNotify: true, callbackSchedule: schedule, ...options });
  started.push(sandbox);
  return sandbox.listen({ port: 0, host: "127.0.0.1" });
}
afterAll(async () => {
  await Promise.all(started.map((sandbox) => sandbox.close()));
});

function options(baseUrl: string, controlBase: string, patch: Partial<ConformanceOptions> = {}): ConformanceOptions {
  return { baseUrl, ...credentials, merchantIds: ["10001"], foreignMerchantId: "10004", apiKey: "demo-api-key", controlUrl: `${controlBase}/sandbox`, callbackWaitMs: 3000, concurrency: 6, ...patch };
}

const notPassed = (report: ConformanceReport) =>
  report.results
    .filter((r) => r.status !== "passed")
    .map((r) => `${r.status} ${r.name}: ${r.reason}`)
    .join("\n");

describe("a server whose clock is off", () => {
  it("beyond the window: one failure naming the skew, every signing check skipped, the rest still run", async () => {
    const sandbox = await start({ clock: { now: () => Date.now() + 400_000 } });
    const report = await runConformance(options(sandbox.url, sandbox.url));
    const failed = report.results.filter((r) => r.status === "failed");
    expect(failed.map((r) => r.name)).toEqual(["clock.within-window"]);
    expect(failed[0]!.failure!.message).toMatch(/100004.*control API clock: 40[01] s ahead of this machine's/);
    expect(failed[0]!.failure!.exchange?.response?.status).toBe(401);
    const skipped = report.results.filter((r) => r.status === "skipped");
    expect(skipped.length).toBeGreaterThan(45);
    for (const result of skipped) expect(result.reason).toMatch(/see clock\.within-window/);
    // The key-based interface does not sign: its checks still ran and passed.
    expect(report.results.filter((r) => r.status === "passed").map((r) => r.name).every((name) => name.startsWith("keyed."))).toBe(true);
    expect(report.counts.passed).toBe(3);
    // The text report says the cause once.
    expect(textReport(report)).toMatch(new RegExp(`\n  ${skipped.length} checks: not run: the server refuses requests timed by this machine's clock \\(see clock\\.within-window\\)\n    responses\\.syncCustomer, `));
  });

  it.each([60, -60])("within the window (%i s): the timestamp probes are aimed at its clock and pass", async (offsetSeconds) => {
    const sandbox = await start({ clock: { now: () => Date.now() + offsetSeconds * 1000 } });
    const report = await runConformance(options(sandbox.url, sandbox.url, { include: ["signature", "clock"] }));
    expect(notPassed(report)).toBe("");
    expect(report.clock?.aimSeconds).toBeGreaterThanOrEqual(offsetSeconds - 1);
    expect(report.clock?.aimSeconds).toBeLessThanOrEqual(offsetSeconds + 1);
  });
});

describe("HTTPS-only notifyUrl and secret rotation", () => {
  let tls: { cert: string; key: string };
  let rotated: ListeningSandbox;
  let httpsOnly: FaultyServer;

  beforeAll(async () => {
    const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
      keySize: 2048,
      algorithm: "sha256",
      extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
    });
    tls = { cert: pems.cert, key: pems.private };
    // The app's secrets in rotation: the server signs callbacks with its primary, the new one.
    // (Edited as text: the fixtures hold ids above 2^53.)
    const text = readFileSync(new URL("../../src/sandbox/fixtures/default.json", import.meta.url), "utf8");
    const fixtures = text.replace(/"appSecrets": \[\s*"demo-app-secret",\s*"demo-app-secret-next"\s*\]/, `"appSecrets": ["rotated-secret", "${credentials.appSecret}"]`);
    expect(fixtures).not.toBe(text);
    rotated = await start({ fixtures, fetch: fetchTrusting(tls.cert) });
    httpsOnly = await startFaultyServer(rotated.url, credentials, faultsFor(credentials).find((fault) => fault.name.startsWith("refuses every http notifyUrl"))!);
  });
  afterAll(async () => {
    await httpsOnly.close();
  });

  it("the callback check passes through a receiver serving TLS, with both secrets given", async () => {
    const report = await runConformance(options(httpsOnly.url, rotated.url, { include: ["callbacks"], appSecrets: ["rotated-secret"], receiverTls: tls }));
    expect(notPassed(report)).toBe("");
    expect(report.counts.passed).toBe(1);
    expect(report.target.callbackReceiver).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
  });

  it("a callback signed with a secret not given fails, naming how many secrets were tried", async () => {
    const report = await runConformance(options(rotated.url, rotated.url, { include: ["callbacks"] }));
    const result = report.results.find((r) => r.name === "callbacks.payment-succeeded")!;
    expect(result.status).toBe("failed");
    expect(result.failure!.message).toMatch(/signature does not verify/);
    expect(result.failure!.expected).toMatch(/1 given; pass every valid one with --app-secret/);
  });
});

/** A fetch for the sandbox's callback deliveries that trusts one self-signed certificate. */
function fetchTrusting(ca: string): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    if (url.protocol !== "https:") return fetch(input, init);
    return new Promise<Response>((resolve, reject) => {
      const req = httpsRequest(url, { method: init?.method ?? "GET", headers: init?.headers as Record<string, string>, ca, ...(init?.signal && { signal: init.signal }) }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0 })));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(typeof init?.body === "string" ? init.body : undefined);
    });
  }) as typeof fetch;
}

/**
 * A legitimate server that counts its ids up: orders 2^54 + 1, + 2, + 3 … and app users
 * 2^55 + 1, + 2 … (above 2^53, so a double cannot hold most of them, and every neighbour of an
 * id exists once a few were made). In front of the sandbox, it renumbers the sandbox's ids in
 * every answer and back in every request (re-signing a body it changes).
 */
function countingIds(): Fault {
  const toSandbox = new Map<string, string>();
  const fromSandbox = new Map<string, string>();
  let orders = 0n;
  let users = 0n;
  const learn = (sandboxId: string, base: bigint, next: () => bigint) => {
    if (fromSandbox.has(sandboxId)) return;
    const ours = String(base + next());
    fromSandbox.set(sandboxId, ours);
    toSandbox.set(ours, sandboxId);
  };
  // JSON numbers only (after ":" "," or "["): quoted digits (tradeNo, messages) are left alone.
  const numbers = /(?<=[:,[]\s*)(\d+)(?=\s*[,\]}])/g;
  const path = (url: string) => new URL(url, "http://x").pathname;
  return {
    name: "counts its ids up, app users above 2^53",
    breaks: [],
    request: (r: ForwardedRequest, t) => {
      const url = r.url.replace(/(?<=\/)(\d+)(?=[/?]|$)/g, (d) => toSandbox.get(d) ?? d);
      const body = r.body.replace(numbers, (d) => toSandbox.get(d) ?? d);
      return body === r.body ? { ...r, url } : t.resign({ ...r, url, body });
    },
    response: (res, r) => {
      const json = (() => {
        try {
          return JSON.parse(res.body) as { code?: number; data?: unknown };
        } catch {
          return undefined;
        }
      })();
      if (json?.code === 0 && r.method === "POST" && /\/orders$/.test(path(r.url))) learn(/"data":(\d+)/.exec(res.body)![1]!, 2n ** 54n, () => ++orders);
      if (json?.code === 0 && /\/customers\/sync$/.test(path(r.url))) learn(/"appUserId":(\d+)/.exec(res.body)![1]!, 2n ** 55n, () => ++users);
      return { ...res, body: res.body.replace(numbers, (d) => fromSandbox.get(d) ?? d) };
    },
  };
}

/** One server with several behaviours: the first answer given wins, requests and answers pass through each in turn. */
function combined(name: string, faults: Fault[]): Fault {
  return {
    name,
    breaks: faults.flatMap((f) => f.breaks),
    answer: async (r, t) => {
      for (const fault of faults) {
        const own = await fault.answer?.(r, t);
        if (own) return own;
      }
      return undefined;
    },
    request: async (r, t) => {
      for (const fault of faults) if (fault.request) r = await fault.request(r, t);
      return r;
    },
    response: async (res, r, t) => {
      for (const fault of faults) if (fault.response) res = await fault.response(res, r, t);
      return res;
    },
  };
}

describe("legitimate choices the checker once punished", () => {
  let sandbox: ListeningSandbox;
  beforeAll(async () => {
    sandbox = await start({});
  });

  it("ids that count up, app users above 2^53: every int64 check is judged and passes, run after run", { timeout: 120_000 }, async () => {
    const counting = await startFaultyServer(sandbox.url, credentials, countingIds());
    try {
      for (let run = 0; run < 3; run++) {
        const report = await runConformance(options(counting.url, sandbox.url, { exclude: ["callbacks"] }));
        expect(notPassed(report), `run ${run + 1}`).toBe("");
        // Judged, not skipped: the rounded-id probe found an id that does not exist (no allocation assumed).
        expect(report.results.filter((r) => r.name.startsWith("int64.")).map((r) => r.status)).toEqual(["passed", "passed", "passed", "passed"]);
      }
      // The app user above 2^53 was read back from customer sync (Order has no userId).
      const probe = await runConformance(options(counting.url, sandbox.url, { include: ["int64.above-2^53"], concurrency: 1 }));
      expect(notPassed(probe)).toBe("");
    } finally {
      await counting.close();
    }
  });

  it("a partial implementation: what it leaves out (100015) is skipped as not implemented, nothing fails", { timeout: 120_000 }, async () => {
    const leftOut = ["listCardTemplates", "purchaseMemberCard", "getStoreBusinessHours", "refundOrder"];
    const patterns: Record<string, RegExp> = { listCardTemplates: /\/card-templates$/, purchaseMemberCard: /\/member-cards\/purchase$/, getStoreBusinessHours: /\/business-hours$/, refundOrder: /\/refund$/ };
    const partial = await startFaultyServer(sandbox.url, credentials, {
      name: "implements all but four operations",
      breaks: [],
      answer: (r) => {
        const operationId = leftOut.find((id) => patterns[id]!.test(new URL(r.url, "http://x").pathname));
        if (!operationId || !r.url.startsWith("/open-api")) return undefined;
        return { status: 404, headers: { "content-type": "application/json" }, body: stringifyJson({ code: 100015, msg: `This server does not implement ${operationId}.`, data: null })! };
      },
    });
    try {
      const report = await runConformance(options(partial.url, sandbox.url, { exclude: ["callbacks"] }));
      expect(report.counts.failed, notPassed(report)).toBe(0);
      const skipped = Object.fromEntries(report.results.filter((r) => r.status === "skipped").map((r) => [r.name, r.reason!]));
      const needLeftOut = ["idempotency.out-refund-no", "responses.getStoreBusinessHours", "responses.listCardTemplates", "responses.purchaseMemberCard", "responses.refundOrder", "state.paid-order-lifecycle", "state.refund-requires-paid"];
      for (const name of needLeftOut) {
        expect(skipped[name], name).toMatch(/^not implemented: the server answers (listCardTemplates|purchaseMemberCard|getStoreBusinessHours|refundOrder) with 100015 \(This server does not implement/);
      }
      // Only what needs a left-out operation is skipped; the int64 checks judge the kinds it serves.
      expect(Object.keys(skipped).sort()).toEqual(needLeftOut);
    } finally {
      await partial.close();
    }
  });

  it("a server written from the source alone: only designed checks fail, and --exclude designed passes it", { timeout: 120_000 }, async () => {
    const faults = faultsFor(credentials);
    const pick = (name: string) => faults.find((fault) => fault.name === name)!;
    const sourceOnly = combined("follows the source, not the contract's designed rules", [
      pick("routes before checking the signature"),
      pick("ignores unknown query parameters"),
      pick("ignores unknown body properties"),
      pick("has no outRefundNo idempotency"),
      pick("refuses a 0-amount payment with a generic validation code"),
      pick("answers a GET that carries a body"),
    ]);
    const server = await startFaultyServer(sandbox.url, credentials, sourceOnly);
    try {
      const all = await runConformance(options(server.url, sandbox.url, { exclude: ["callbacks"] }));
      const failed = all.results.filter((r) => r.status === "failed");
      expect(failed.map((r) => r.name).sort()).toEqual([...sourceOnly.breaks].sort());
      for (const result of failed) expect(result.origin, result.name).toBe("designed");
      expect(textReport(all)).toContain(`designed: ${all.countsByOrigin.designed.passed} passed, ${failed.length} failed`);

      const source = await runConformance(options(server.url, sandbox.url, { exclude: ["designed"] }));
      expect(notPassed(source)).toBe("");
      expect(source.results.every((r) => r.origin === "source")).toBe(true);
      expect(source.counts.passed).toBeGreaterThan(30);
    } finally {
      await server.close();
    }
  });

  it("a failure while setting a check up cites the call that failed and its own operation's rule", { timeout: 60_000 }, async () => {
    const broken = await startFaultyServer(sandbox.url, credentials, {
      name: "answers card templates without their names",
      breaks: [],
      response: (res, r) => (r.method === "GET" && /\/card-templates/.test(r.url) ? { ...res, body: res.body.replace(/"templateName":"[^"]*",/g, "") } : res),
    });
    try {
      const report = await runConformance(options(broken.url, sandbox.url, { include: ["responses.purchaseMemberCard"] }));
      const failure = report.results[0]!.failure!;
      expect(failure.message).toMatch(/^setting up the check, listCardTemplates failed: /);
      expect(failure.rule).toBe("signed spec, operation listCardTemplates, response 200");
      expect(failure.exchange!.request.url).toMatch(/\/card-templates\?merchantId=10001$/);
    } finally {
      await broken.close();
    }
  });
});
