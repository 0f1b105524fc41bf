// The dashboard's request memory: a ring of the latest requests, newest first, times in the
// sandbox clock's platform time, the dashboard's own polling left out.
import { EventEmitter } from "node:events";
import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { createRequestRecorder } from "../../src/sandbox/dashboard/recorder.js";
import { requestState } from "../../src/server/index.js";

function exchange(path: string, status: number, code: number, method = "GET") {
  const res = Object.assign(new EventEmitter(), { statusCode: status, headersSent: true, locals: {}, getHeader: () => "application/json" }) as unknown as Response & EventEmitter;
  requestState(res).envelopeCode = code;
  requestState(res).operationId = "listStores";
  const req = { originalUrl: `${path}?merchantId=1`, method, headers: {}, rawHeaders: ["X-Sign", "c2lnbmF0dXJlLXRoYXQtbXVzdC1ub3Qtc2hvdy1pbi1mdWxsPQ=="] };
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
    expect(listed[0]).toMatchObject({ atMs: Date.UTC(2026, 10, 22, 2, 15, 34), method: "GET", url: "/open-api/v1/r5?merchantId=1", operationId: "listStores", signature: null });
    expect(listed[0]!.headers).toEqual([["X-Sign", "c2lnbm… (52 characters, masked)"]]);
    expect(recorder.get(listed[1]!.id)).toBe(listed[1]);
    recorder.clear();
    expect(recorder.list()).toEqual([]);
  });

  it("counts the dashboard's own reads instead of recording them; its resend (a user's action) is recorded", () => {
    const recorder = createRequestRecorder({ now: () => 0 } as never);
    const { req, res, finish } = exchange("/sandbox/ui/state", 200, 0);
    let passed = false;
    recorder.middleware(req, res, () => void (passed = true));
    finish();
    expect(passed).toBe(true);
    expect(recorder.list()).toEqual([]);
    expect(recorder.ownRequests).toBe(1);
    const resend = exchange("/sandbox/ui/callbacks/evt_1/resend", 200, 0, "POST");
    recorder.middleware(resend.req, resend.res, () => undefined);
    resend.finish();
    expect(recorder.list().map((r) => [r.method, r.area])).toEqual([["POST", "dashboard"]]);
    expect(recorder.ownRequests).toBe(1);
  });
});
