// The sandbox answers a duplicate key or excessive nesting with 100009 naming the problem, on
// the signed interface and on the (unauthenticated) control API, and logs no "sandbox bug".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/json/index.js";
import { startSandbox, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});

const trade = (totalAmount: string) =>
  `{"merchantId":10001,"outTradeNo":"DUP-1","totalAmount":${totalAmount},"subject":"Tea","notifyUrl":"https://127.0.0.1:9/cb"}`;

describe("duplicate keys and deep JSON", () => {
  it("refuses a signed body with a duplicate key (100009), and creates nothing", async () => {
    const answer = await sb.signed({ path: "/payment/cashier/create", body: trade('1,"totalAmount":999') });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe(100009);
    expect(answer.json.msg).toMatch(/body is not valid JSON: Duplicate key "totalAmount" at position \d+/);
  });

  it("refuses a duplicate key next to an int64 id (the exact parser's path) too", async () => {
    const answer = await sb.signed({ path: "/customers/sync", body: '{"openUserId":"a","x":9223372036854775807,"openUserId":"b"}' });
    expect(answer.json.code).toBe(100009);
    expect(answer.json.msg).toContain('Duplicate key "openUserId"');
  });

  it.each([
    ["signed", () => sb.signed({ path: "/customers/sync", body: `{"openUserId":"a","deep":${"[".repeat(5500)}${"]".repeat(5500)}}` })],
    ["control", () => sb.control("POST", "/clock/advance", `{"seconds":${"[".repeat(5500)}1${"]".repeat(5500)}}`)],
  ])("refuses 5,500 levels of nesting on the %s interface with 100009, no sandbox bug", async (_name, send) => {
    const answer = await send();
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe(100009);
    expect(answer.json.msg).toContain(`Nesting deeper than ${MAX_JSON_DEPTH} levels`);
    expect(sb.logs.errors).toEqual([]);
  });

  it("still serves a valid request; the refused one created no trade under its outTradeNo", async () => {
    // Had the refused body made a trade DUP-1 of 999, another amount under DUP-1 would conflict.
    const answer = await sb.signed({ path: "/payment/cashier/create", body: trade("5") });
    expect(answer.json.code).toBe(0);
  });
});
