// The clock diagnosis on its own: readings, when a skew is blamed, and where the probes aim.
import { describe, expect, it } from "vitest";
import { diagnoseClock, readingFromDate, windowProbeOffsets, type ClockReading } from "../../src/conformance/clock.js";
import type { Exchange } from "../../src/conformance/http.js";

const answer = (code: number, date?: string, startedAt = 1_800_000_000_000): Exchange => {
  const bodyText = JSON.stringify({ code, msg: "x", data: null });
  return { request: { method: "GET", url: "http://127.0.0.1:1/open-api/v1/stores", headers: {} }, response: { status: code === 0 ? 200 : 401, headers: { "content-type": "application/json", ...(date && { date }) }, bodyText, json: JSON.parse(bodyText) }, durationMs: 20, startedAt };
};

describe("clock readings", () => {
  it("reads the Date header as the middle of its second, against the middle of the exchange", () => {
    const sent = Date.parse("2027-01-15T08:00:00.000Z");
    const reading = readingFromDate(answer(0, "Fri, 15 Jan 2027 08:10:00 GMT", sent));
    expect(reading).toEqual({ skewMs: 600_000 + 500 - 10, source: "Date header" });
  });

  it("has no reading without a Date header or a send time", () => {
    expect(readingFromDate(answer(0))).toBeUndefined();
    expect(readingFromDate({ ...answer(0, "Fri, 15 Jan 2027 08:10:00 GMT"), startedAt: undefined })).toBeUndefined();
    expect(readingFromDate(answer(0, "not a date"))).toBeUndefined();
  });
});

describe("the diagnosis", () => {
  const date = (skewMs: number): ClockReading => ({ skewMs, source: "Date header" });
  const control = (skewMs: number): ClockReading => ({ skewMs, source: "control API clock" });

  it("blames the clock only when a correctly timed request is refused with 100004", () => {
    expect(diagnoseClock([date(900_000)], answer(0)).refusal).toBeUndefined();
    expect(diagnoseClock([date(900_000)], answer(100003)).refusal).toBeUndefined();
    const refused = diagnoseClock([date(-1000), control(-420_000)], answer(100004));
    expect(refused.refusal?.message).toMatch(/100004.*Date header: 1 s behind this machine's; control API clock: 420 s behind this machine's/);
    expect(refused.skewMs).toBe(-420_000);
  });

  it("says what it could not measure", () => {
    expect(diagnoseClock([], answer(100004)).refusal?.message).toMatch(/its clock or this machine's is off \(no Date header or control API clock/);
  });

  it.each([
    ["a second off: noise", [date(1500)], 0],
    ["a minute fast", [date(60_400)], 60],
    ["a minute slow, by the control clock over the Date header", [date(0), control(-59_600)], -60],
    ["too close to the window to aim at", [control(295_000)], 0],
  ] as const)("aims the window probes: %s", (_label, readings, aim) => {
    expect(diagnoseClock([...readings], answer(0)).aimSeconds).toBe(aim);
  });

  it("puts the probes just outside the server's window", () => {
    expect(windowProbeOffsets(undefined)).toEqual({ staleSeconds: -301, futureSeconds: 310 });
    expect(windowProbeOffsets(diagnoseClock([control(60_000)], answer(0)))).toEqual({ staleSeconds: 60 - 305, futureSeconds: 60 + 310 });
  });
});
