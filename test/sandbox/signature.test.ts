// The signature check of the signed interface, done once before validation (DESIGN item 6).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sign, signRequestHeaders } from "../../src/signing/index.js";
import { DEMO, DEMO_NEXT_SECRET, startSandbox, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
afterEach(() => expect(sb.logs.errors).toEqual([]));

const seconds = () => Math.floor(sb.sandbox.clock.now() / 1000);

describe("headers", () => {
  it.each(["X-App-Key", "X-Timestamp", "X-Nonce", "X-Sign"])("refuses a request without %s (100001)", async (header) => {
    const answer = await sb.signed({ path: "/merchants", headers: { [header]: null } });
    expect(answer.json).toMatchObject({ code: 100001, data: null });
    expect(answer.json.msg).toContain(header);
    expect(answer.status).toBe(401);
  });

  it("refuses an empty header like a missing one", async () => {
    expect((await sb.signed({ path: "/merchants", headers: { "X-Sign": "" } })).json.code).toBe(100001);
  });

  it("checks the signature before the path exists, so unknown paths do not leak to strangers", async () => {
    const answer = await sb.raw("/open-api/v1/nowhere");
    expect(answer.json.code).toBe(100001);
  });
});

describe("formats", () => {
  it("refuses a hexadecimal signature (100012)", async () => {
    const headers = signRequestHeaders({ ...DEMO, now: () => sb.sandbox.clock.now() });
    const hex = Buffer.from(headers["X-Sign"], "base64").toString("hex");
    const answer = await sb.signed({ path: "/merchants", headers: { "X-Sign": hex } });
    expect(answer.json.code).toBe(100012);
    expect(answer.json.msg).toMatch(/hex/);
  });

  it("refuses a millisecond timestamp (100010)", async () => {
    const answer = await sb.signed({ path: "/merchants", timestamp: undefined, headers: { "X-Timestamp": String(sb.sandbox.clock.now()) } });
    expect(answer.json.code).toBe(100010);
    expect(answer.json.msg).toMatch(/milliseconds/);
  });

  it("refuses a malformed nonce (100011)", async () => {
    expect((await sb.signed({ path: "/merchants", headers: { "X-Nonce": "has spaces in it" } })).json.code).toBe(100011);
  });
});

describe("who signs", () => {
  it("refuses an unknown app key (100002)", async () => {
    const answer = await sb.signed({ path: "/merchants", app: { appKey: "stranger", appSecret: "s" } });
    expect(answer.json.code).toBe(100002);
    expect(answer.status).toBe(401);
  });

  it("accepts every secret of a rotation, and nothing else (100003)", async () => {
    expect((await sb.signed({ path: "/merchants", app: { appKey: DEMO.appKey, appSecret: DEMO_NEXT_SECRET } })).status).toBe(200);
    expect((await sb.signed({ path: "/merchants", app: DEMO })).status).toBe(200);
    const answer = await sb.signed({ path: "/merchants", app: { appKey: DEMO.appKey, appSecret: "retired-secret" } });
    expect(answer.json.code).toBe(100003);
  });
});

describe("freshness", () => {
  it.each([
    ["300 s behind", -300, 0],
    ["300 s ahead", 300, 0],
    ["301 s behind", -301, 100004],
    ["301 s ahead", 301, 100004],
  ])("a timestamp %s answers %s", async (_label, offset, code) => {
    const answer = await sb.signed({ path: "/merchants", timestamp: String(seconds() + offset) });
    expect(answer.json.code).toBe(code);
  });

  it("follows the sandbox clock when the control API advances it", async () => {
    const before = String(seconds());
    await sb.control("POST", "/clock/advance", { seconds: 600 });
    const stale = await sb.signed({ path: "/merchants", timestamp: before });
    expect(stale.json.code).toBe(100004);
    expect((await sb.signed({ path: "/merchants" })).json.code).toBe(0);
  });

  it("refuses a reused nonce (100005), but a forged request does not burn it", async () => {
    const forged = await sb.signed({ path: "/merchants", nonce: "nonce-forge-test", app: { appKey: DEMO.appKey, appSecret: "forger" } });
    expect(forged.json.code).toBe(100003);
    expect((await sb.signed({ path: "/merchants", nonce: "nonce-forge-test" })).json.code).toBe(0);
    const replay = await sb.signed({ path: "/merchants", nonce: "nonce-forge-test" });
    expect(replay.json.code).toBe(100005);
  });
});

describe("the body", () => {
  it("is signed exactly as sent: extra spaces are fine when they are signed", async () => {
    const body = '{ "openUserId" :  "spacey-user" }';
    const answer = await sb.signed({ path: "/customers/sync", body });
    expect(answer.json.code).toBe(0);
  });

  it("refuses a body changed after signing (100003)", async () => {
    const signedBody = '{"openUserId":"tamper-a"}';
    const headers = signRequestHeaders({ ...DEMO, body: signedBody, now: () => sb.sandbox.clock.now() });
    const answer = await sb.raw("/open-api/v1/customers/sync", {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: '{"openUserId":"tamper-b"}',
    });
    expect(answer.json.code).toBe(100003);
  });

  it("signs the bytes of a GET as the empty string", async () => {
    const timestamp = String(seconds());
    const headers = { "X-App-Key": DEMO.appKey, "X-Timestamp": timestamp, "X-Nonce": "get-empty-body", "X-Sign": sign({ ...DEMO, timestamp, nonce: "get-empty-body", body: "" }) };
    expect((await sb.raw("/open-api/v1/merchants", { headers })).json.code).toBe(0);
  });

  it("does not sign the query string: the same headers pass with another query (documented exposure)", async () => {
    const timestamp = String(seconds());
    const nonce = "query-not-signed";
    const headers = { "X-App-Key": DEMO.appKey, "X-Timestamp": timestamp, "X-Nonce": nonce, "X-Sign": sign({ ...DEMO, timestamp, nonce, body: "" }) };
    expect((await sb.raw("/open-api/v1/merchants?pageSize=1", { headers })).json.code).toBe(0);
  });
});
