// The key-based interface (/v1): bearer key, envelope {code, message, data} with code 200,
// string ids and status words, limit default 20 and maximum 100, status filter, pagination.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { KeyedErrors } from "../../generated/error-codes.js";
import { parseJsonLossless } from "../../src/json/index.js";
import { defaultFixturesText } from "../../src/sandbox/index.js";
import { startSandbox, successSchemaErrors, type Answer, type TestSandbox } from "../support/sandbox.js";

const STATUSES = ["active", "inactive", "pending"] as const;

/** The default fixtures plus 45 merchants on the demo API key's account. */
function bigAccountFixtures() {
  const fixtures = parseJsonLossless(defaultFixturesText()) as any;
  for (let i = 0; i < 45; i++) {
    const id = 30000 + i;
    fixtures.merchants.push({ ...fixtures.merchants[0], id, merchantName: `Account merchant ${i}` });
    fixtures.apiKeys[0].merchants.push({ merchantId: id, status: STATUSES[i % 3], createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-02-01T00:00:00+08:00" });
  }
  fixtures.apiKeys.push({ apiKey: "limited-api-key", rateLimitPerSecond: 1, merchants: [] });
  return fixtures;
}

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ fixtures: bigAccountFixtures() });
});
afterAll(() => sb.close());
afterEach(() => expect(sb.logs.errors).toEqual([]));

function ok(answer: Answer) {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json).toMatchObject({ code: 200, message: "success" });
  expect(successSchemaErrors("keyed", "listAccountMerchants", answer.json)).toEqual([]);
  return answer.json.data;
}

function refused(answer: Answer, name: keyof typeof KeyedErrors, mentions: RegExp) {
  const entry = KeyedErrors[name];
  expect(answer.status, answer.text).toBe(entry.http);
  expect(answer.json).toEqual({ code: entry.code, message: expect.stringMatching(mentions), data: null });
}

describe("authentication", () => {
  it("refuses a missing, malformed or unknown key with code 401", async () => {
    refused(await sb.keyed("/merchants", { apiKey: null }), "KEYED_UNAUTHORIZED", /missing/);
    refused(await sb.raw("/v1/merchants", { headers: { Authorization: "Basic abc" } }), "KEYED_UNAUTHORIZED", /Bearer <API_KEY>/);
    refused(await sb.keyed("/merchants", { apiKey: "not-a-key" }), "KEYED_UNAUTHORIZED", /unknown/);
  });

  it("does not take the signed interface's headers", async () => {
    refused(await sb.raw("/v1/merchants", { headers: { "X-App-Key": "demo-app-key" } }), "KEYED_UNAUTHORIZED", /missing/);
  });
});

describe("listAccountMerchants", () => {
  it("answers the account's merchants with string ids, status words and a page of 20 by default", async () => {
    const data = ok(await sb.keyed("/merchants"));
    expect(data.pagination).toEqual({ page: 1, limit: 20, total: 50, pages: 3 });
    expect(data.merchants).toHaveLength(20);
    expect(data.merchants[0]).toEqual({ id: "10001", name: "Jade Garden Tea House", status: "active", created_at: "2025-03-01T01:00:00Z", updated_at: "2026-10-01T08:30:00Z" });
    expect(data.merchants[19].updated_at).toBe("2026-01-31T16:00:00Z");
  });

  it("pages with limit up to 100", async () => {
    const last = ok(await sb.keyed("/merchants?page=3&limit=20"));
    expect(last.merchants).toHaveLength(10);
    const all = ok(await sb.keyed("/merchants?limit=100"));
    expect(all.merchants).toHaveLength(50);
    expect(all.pagination).toEqual({ page: 1, limit: 100, total: 50, pages: 1 });
    const beyond = ok(await sb.keyed("/merchants?page=4"));
    expect(beyond).toEqual({ merchants: [], pagination: { page: 4, limit: 20, total: 50, pages: 3 } });
    refused(await sb.keyed("/merchants?limit=101"), "KEYED_VALIDATION_FAILED", /query\.limit must be <= 100/);
    refused(await sb.keyed("/merchants?limit=0"), "KEYED_VALIDATION_FAILED", /query\.limit must be >= 1/);
    refused(await sb.keyed("/merchants?page=x"), "KEYED_VALIDATION_FAILED", /query\.page must be integer/);
  });

  it("filters by status", async () => {
    for (const status of STATUSES) {
      const data = ok(await sb.keyed(`/merchants?status=${status}&limit=100`));
      expect(data.merchants.length).toBeGreaterThan(0);
      expect(data.merchants.every((m: { status: string }) => m.status === status)).toBe(true);
      expect(data.pagination.total).toBe(data.merchants.length);
    }
    refused(await sb.keyed("/merchants?status=deleted"), "KEYED_VALIDATION_FAILED", /query\.status must be equal to one of the allowed values/);
  });

  it("refuses unknown query parameters, paths and methods in its own envelope", async () => {
    refused(await sb.keyed("/merchants?sort=name"), "KEYED_VALIDATION_FAILED", /query\.sort is not allowed/);
    refused(await sb.keyed("/stores"), "KEYED_PATH_NOT_FOUND", /path/);
    refused(await sb.keyed("/merchants", { method: "POST" }), "KEYED_METHOD_NOT_ALLOWED", /POST/);
  });

  it("rate-limits a key with code 429 and Retry-After", async () => {
    ok(await sb.keyed("/merchants", { apiKey: "limited-api-key" }));
    const answer = await sb.keyed("/merchants", { apiKey: "limited-api-key" });
    refused(answer, "KEYED_RATE_LIMITED", /at most 1 per second/);
    expect(answer.headers.get("retry-after")).toBe("1");
  });
});
