// The dashboard's request memory: a ring of the latest requests, newest first, times in the
// sandbox clock's platform time, the dashboard's own polling left out.
import { EventEmitter } from "node:events";
import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { createRequestRecorder } from "../../src/sandbox/dashboard/recorder.js";
import { requestState } from "../../src/server/index.js";

function exchange(path: string, status: number, code: number) {
  const res = Object.assign(new EventEmitter(), { statusCode: status, locals: { operationId: "listStores" } }) as unknown as Response & EventEmitter;
  requestState(res).envelopeCode = code;
  const req = { originalUrl: `${path}?merchantId=1`, method: "GET" };
  return { req: req as unknown as Request, res, finish: () => res.emit("finish") };
}

describe("createRequestRecorder", () => {
  it("keeps the latest `capacity` requests, newest first, and forgets them on clear()", () => {
    let now = Date.UTC(2026, 10, 22, 2, 15, 30);
    const recorder = createRequestRecorder({ now: () => now } as never, 3);
    for (let i = 1; i <= 5; i++) {
      const { req, res, finish } = exchange(`/open-api/v1/r${i}`, 200 + i, i);
      recorder.middleware(req, res, () => undefined);
      finish();
      now += 1000;
    }
    const listed = recorder.list();
    expect(listed.map((r) => [r.path, r.status, r.code])).toEqual([
      ["/open-api/v1/r5", 205, 5],
      ["/open-api/v1/r4", 204, 4],
      ["/open-api/v1/r3", 203, 3],
    ]);
    expect(listed[0]).toMatchObject({ time: "2026-11-22T10:15:34+08:00", method: "GET", operationId: "listStores", signature: null });
    recorder.clear();
    expect(recorder.list()).toEqual([]);
  });

  it("does not record the dashboard's own requests", () => {
    const recorder = createRequestRecorder({ now: () => 0 } as never);
    const { req, res, finish } = exchange("/sandbox/ui/state", 200, 0);
    let passed = false;
    recorder.middleware(req, res, () => void (passed = true));
    finish();
    expect(passed).toBe(true);
    expect(recorder.list()).toEqual([]);
  });
});
