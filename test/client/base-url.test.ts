import { afterEach, describe, expect, it } from "vitest";
import { ClientConfigError, createKeyedClient, createSignedClient } from "../../src/client/index.js";
import { appKey, appSecret, okEnvelope, startServer, type TestServer } from "./support.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const merchant =
  '{"id":10001,"merchantName":"m","merchantType":1,"contactName":"c","contactPhone":"138****0000","province":"p","city":"c",' +
  '"district":"d","address":"a","businessHours":"h","logoUrl":"https://x.example/l.png","description":"d","storeCount":1}';

describe("base URLs", () => {
  it.each([
    ["the versioned /open-api/v1", "/open-api/v1", "/open-api/v1/merchants/10001"],
    ["the unversioned /open-api", "/open-api", "/open-api/merchants/10001"],
    ["/open-api/v1 with a trailing slash", "/open-api/v1/", "/open-api/v1/merchants/10001"],
    ["a bare origin (gets /open-api/v1)", "", "/open-api/v1/merchants/10001"],
  ])("%s reaches the server with the same operation paths", async (_name, basePath, wantPath) => {
    server = await startServer(() => okEnvelope(merchant));
    const client = createSignedClient({ baseUrl: `${server.origin}${basePath}`, appKey, appSecret });

    const detail = await client.call("getMerchant", { params: { path: { merchantId: 10001 } } });

    expect(detail.id).toBe(10001);
    expect(server.received[0]!.url).toBe(wantPath);
    expect(server.received[0]!.verification.ok).toBe(true);
  });

  it("gives the key-based client /v1 for a bare origin", () => {
    expect(createKeyedClient({ baseUrl: "http://127.0.0.1:4010", apiKey: "k" }).baseUrl).toBe("http://127.0.0.1:4010/v1");
  });
});

describe("client options", () => {
  const good = { baseUrl: "http://127.0.0.1:4010/open-api/v1", appKey, appSecret };

  it.each<[string, Record<string, unknown>, string]>([
    ["a missing appSecret", { appSecret: undefined }, "appSecret"],
    ["an empty appSecret", { appSecret: "" }, "appSecret"],
    ["a numeric appSecret", { appSecret: 12345 }, "appSecret"],
    ["a missing appKey", { appKey: undefined }, "appKey"],
    ["an appKey with a space", { appKey: "my key" }, "appKey"],
    ["a missing baseUrl", { baseUrl: undefined }, "baseUrl"],
    ["a relative baseUrl", { baseUrl: "/open-api/v1" }, "baseUrl"],
    ["a baseUrl with a query", { baseUrl: "http://h/open-api/v1?x=1" }, "baseUrl"],
    ["an ftp baseUrl", { baseUrl: "ftp://h/open-api/v1" }, "baseUrl"],
    ["a zero timeout", { timeoutMs: 0 }, "timeoutMs"],
    ["a string timeout", { timeoutMs: "100" }, "timeoutMs"],
    ["negative retries", { retry: { retries: -1 } }, "retry.retries"],
    ["maxDelayMs below baseDelayMs", { retry: { baseDelayMs: 500, maxDelayMs: 100 } }, "retry.maxDelayMs"],
    ["a non-function fetch", { fetch: "fetch" }, "fetch"],
    ["a non-function nonce", { nonce: "abc" }, "nonce"],
    ["middleware that is not an array", { middleware: {} }, "middleware"],
    ["a middleware without hooks", { middleware: [{}] }, "middleware[0]"],
  ])("refuses %s with a ClientConfigError naming it", (_name, override, field) => {
    let error: unknown;
    try {
      createSignedClient({ ...good, ...override } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ClientConfigError);
    expect(error).toMatchObject({ field });
    expect((error as Error).message).toContain(field.replace(/\[0\]$/, ""));
  });

  it("refuses a missing options object", () => {
    expect(() => createSignedClient(undefined as never)).toThrow(ClientConfigError);
    expect(() => createKeyedClient(null as never)).toThrow(ClientConfigError);
  });

  it.each([["an empty key", ""], ["a key with the Bearer prefix", "Bearer abc"]])("refuses %s for the key-based client", (_name, apiKey) => {
    expect(() => createKeyedClient({ baseUrl: "http://h/v1", apiKey })).toThrow(ClientConfigError);
  });

  it("turns an injected nonce generator's bad output into a ClientConfigError at the call", async () => {
    const client = createSignedClient({ ...good, nonce: () => "short", fetch: async () => new Response("{}") });
    await expect(client.call("listStores")).rejects.toMatchObject({ name: "ClientConfigError", field: "nonce" });
  });
});
