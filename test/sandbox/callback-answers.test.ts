// The delivery log keeps the start of a failed answer's body, so a receiver's reason is visible
// in the sandbox: end to end with this package's own callback handler mounted the wrong way
// round (after express.json()), and with a raw receiver answering a long body.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BODY_ALREADY_PARSED_ANSWER, createCallbackHandler } from "../../src/callbacks/index.js";
import { RESPONSE_BODY_KEPT_BYTES } from "../../src/sandbox/callbacks/dispatcher.js";
import { DEMO, eventually, startSandbox, successSchemaErrors, type TestSandbox } from "../support/sandbox.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  vi.restoreAllMocks();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`;
}

async function sandbox(): Promise<TestSandbox> {
  const sb = await startSandbox({ allowInsecureNotify: true, callbackSchedule: [20, 20], callbackTimeoutMs: 2000 });
  cleanups.push(() => sb.close());
  return sb;
}

async function payAndWaitForFailure(sb: TestSandbox, notifyUrl: string) {
  const { tradeNo } = await sb.createTrade({ notifyUrl });
  const paid = await sb.control("POST", `/trades/${tradeNo}/pay`);
  expect(paid.json.code, paid.text).toBe(0);
  return eventually(async () => {
    const answer = await sb.control("GET", `/callbacks?eventId=${paid.json.data.eventId}`);
    expect(successSchemaErrors("sandbox-control", "listCallbackDeliveries", answer.json)).toEqual([]);
    const log = answer.json.data.list[0];
    return log?.status === "failed" && log;
  });
}

describe("the delivery log of a failed answer", () => {
  it("shows the callback handler's fix when the receiver mounted it after express.json()", async () => {
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
    const reported: unknown[] = [];
    const app = express();
    app.use(express.json());
    app.post("/callbacks", createCallbackHandler({ secrets: DEMO.appSecret, onEvent: () => {}, onError: (error) => void reported.push(error) }));
    const sb = await sandbox();
    const log = await payAndWaitForFailure(sb, await listen(createServer(app)));

    expect(log.attempts).toHaveLength(3);
    for (const attempt of log.attempts) expect(attempt).toMatchObject({ httpStatus: 500, acknowledged: false, responseBody: BODY_ALREADY_PARSED_ANSWER });
    expect(reported).toHaveLength(3);
    expect(consoleError).toHaveBeenCalledTimes(1);
  });

  it("keeps the first 200 bytes of a long answer, and nothing of an acknowledgement", async () => {
    let calls = 0;
    const long = `${"é".repeat(99)}xyz${"-".repeat(5000)}`; // 198 bytes of "é", then ASCII
    const url = await listen(
      createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          calls += 1;
          res.writeHead(calls === 1 ? 503 : 200, { "Content-Type": "text/plain; charset=utf-8" });
          res.end(calls === 1 ? long : "success");
        });
      }),
    );
    const sb = await sandbox();
    const { tradeNo } = await sb.createTrade({ notifyUrl: url });
    const paid = await sb.control("POST", `/trades/${tradeNo}/pay`);
    const log = await eventually(async () => {
      const list = (await sb.control("GET", `/callbacks?eventId=${paid.json.data.eventId}`)).json.data.list;
      return list[0]?.status === "delivered" && list[0];
    });

    expect(RESPONSE_BODY_KEPT_BYTES).toBe(200);
    expect(log.attempts[0]).toMatchObject({ httpStatus: 503, responseBody: `${"é".repeat(99)}xy` });
    expect(Buffer.byteLength(log.attempts[0].responseBody)).toBe(200);
    expect(log.attempts[1]).toMatchObject({ httpStatus: 200, acknowledged: true, responseBody: null });
  });
});
