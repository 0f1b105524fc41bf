// A check that needs the sandbox control API (to pay a trade) and finds it failing is reported
// as failed with the control request and its answer, like any other failure, not as an
// unexplained "could not complete". The control API here is the sandbox's behind a small
// interposer on loopback that refuses every payTrade.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../../src/conformance/index.js";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";

let sandbox: Sandbox;
let listening: ListeningSandbox;
let interposer: Server;
let controlUrl = "";
const REFUSAL = { code: 500001, msg: "the trade cannot be paid (refused by the test)", data: null };

beforeAll(async () => {
  sandbox = createSandbox({ allowInsecureNotify: true, callbackSchedule: [50] });
  listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  interposer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method === "POST" && /\/trades\/[^/]+\/pay$/.test(req.url ?? "")) {
        res.writeHead(409, { "Content-Type": "application/json" }).end(JSON.stringify(REFUSAL));
        return;
      }
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== "host" && name !== "content-length")) as Record<string, string>;
      fetch(`${listening.url}${req.url}`, { method: req.method, headers, body })
        .then(async (answer) => {
          res.writeHead(answer.status, { "Content-Type": answer.headers.get("content-type") ?? "application/json" }).end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => interposer.listen(0, "127.0.0.1", resolve));
  controlUrl = `http://127.0.0.1:${(interposer.address() as AddressInfo).port}/sandbox`;
});

afterAll(async () => {
  interposer.close();
  await sandbox.close();
});

describe("a failing control call", () => {
  it("fails the check with the control request and its answer in the report", async () => {
    const report = await runConformance({
      baseUrl: listening.url,
      appKey: "demo-app-key",
      appSecret: "demo-app-secret",
      merchantIds: ["10001"],
      controlUrl,
      include: ["state.paid-order-lifecycle"],
    });
    const result = report.results.find((r) => r.name === "state.paid-order-lifecycle");
    expect(result?.status).toBe("failed");
    expect(result?.reason).toBe(`sandbox control payTrade failed: ${REFUSAL.msg}`);
    expect(result?.failure?.rule).toMatch(/sandbox control API/);
    expect(result?.failure?.expected).toMatch(/payTrade to succeed/);
    expect(result?.failure?.exchange?.request.method).toBe("POST");
    expect(result?.failure?.exchange?.request.url).toMatch(/\/sandbox\/trades\/[^/]+\/pay$/);
    expect(result?.failure?.exchange?.response?.status).toBe(409);
  });
});
