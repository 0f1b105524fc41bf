// Items 4 and 5 of the hostile-input review: deep JSON and duplicate keys, against the signed
// interface and the unauthenticated control API, over raw sockets (exact bytes as sent).
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/json/index.js";
import { envelopeOf, expectStillServed, hostileSuite, memoryProbe, rawRequest, signedHead } from "./support.js";

const { sb } = hostileSuite({ seed: { orders: 1, trades: 1 }, noErrorsLogged: true });

const deep = (levels: number) => `{"openUserId":"deep","x":${"[".repeat(levels)}${"]".repeat(levels)}}`;

function controlRequest(body: string): string {
  return `POST /sandbox/clock/advance HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

describe("deep JSON", () => {
  it.each([5_500, 100_000, 500_000])("answers %i levels with 100009 on the signed interface and the control API, 20 times, in bounded memory", async (levels) => {
    const probe = memoryProbe();
    const body = deep(levels);
    for (let i = 0; i < 20; i++) {
      const signed = await rawRequest(sb.url, [signedHead(sb, { path: "/customers/sync", body }), body]);
      expect(signed.status).toBe(400);
      expect(envelopeOf(signed).code).toBe(100009);
      expect(envelopeOf(signed).msg).toContain(`Nesting deeper than ${MAX_JSON_DEPTH} levels`);
    }
    const control = await rawRequest(sb.url, [controlRequest(body)]);
    expect(envelopeOf(control).code).toBe(100009);
    probe.check(100);
    expect(sb.logs.errors).toEqual([]);
    await expectStillServed(sb);
  });
});

describe("duplicate keys", () => {
  it("refuses a signed createCashierSession whose totalAmount is written twice; no trade of either amount exists", async () => {
    const body = '{"merchantId":10001,"outTradeNo":"DUP-RAW","totalAmount":1,"totalAmount":999,"subject":"Tea","notifyUrl":"https://127.0.0.1:9/cb"}';
    const answer = await rawRequest(sb.url, [signedHead(sb, { path: "/payment/cashier/create", body }), body]);
    expect(answer.status).toBe(400);
    expect(envelopeOf(answer).msg).toMatch(/Duplicate key "totalAmount" at position \d+/);
    const again = await sb.signed({ path: "/payment/cashier/create", body: { merchantId: 10001, outTradeNo: "DUP-RAW", totalAmount: 5, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb" } });
    expect(again.json.code).toBe(0);
    await expectStillServed(sb);
  });

  it("refuses duplicate keys on the control API too", async () => {
    const answer = await rawRequest(sb.url, [controlRequest('{"seconds":1,"seconds":100000}')]);
    expect(envelopeOf(answer).code).toBe(100009);
    expect(envelopeOf(answer).msg).toContain('Duplicate key "seconds"');
  });
});
