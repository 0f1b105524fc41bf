import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, ClientConfigError, createKeyedClient, createSignedClient } from "../../src/client/index.js";
import { createSandbox, type ListeningSandbox } from "../../src/sandbox/index.js";
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

describe("a base URL with a path is used exactly as given", () => {
  /** A reverse proxy on loopback serving the upstream's /open-api/v1 at its own root (or under /gateway). */
  async function rootProxy(upstream: string, mount: string): Promise<{ origin: string; close(): Promise<void> }> {
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const path = (req.url ?? "/").slice(mount.length);
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !["host", "connection", "content-length"].includes(name))) as Record<string, string>;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        void fetch(`${upstream}/open-api/v1/${path.replace(/^\//, "")}`, { method: req.method ?? "GET", headers, body }).then(async (answer) => {
          res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
          res.end(Buffer.from(await answer.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    return {
      origin: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => { proxy.closeAllConnections(); proxy.close(() => resolve()); }),
    };
  }

  it.each([
    ["the proxy's root, given as origin + \"/\"", "/", ""],
    ["a path prefix", "/gateway/", "/gateway"],
  ])("reaches %s; the signature made for the proxy verifies upstream", async (_name, basePath, mount) => {
    server = await startServer(() => okEnvelope(merchant));
    const proxy = await rootProxy(server.origin, mount);
    try {
      const client = createSignedClient({ baseUrl: `${proxy.origin}${basePath}`, appKey, appSecret });
      expect(client.baseUrl).toBe(`${proxy.origin}${mount}`);

      const detail = await client.call("getMerchant", { params: { path: { merchantId: 10001 } } });

      expect(detail.id).toBe(10001);
      expect(server.received[0]!.url).toBe("/open-api/v1/merchants/10001");
      expect(server.received[0]!.verification.ok).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it.each([
    ["http://127.0.0.1:4010", "http://127.0.0.1:4010/open-api/v1", "http://127.0.0.1:4010/v1"],
    ["http://127.0.0.1:4010/", "http://127.0.0.1:4010", "http://127.0.0.1:4010"],
    ["http://127.0.0.1:4010/open-api", "http://127.0.0.1:4010/open-api", "http://127.0.0.1:4010/open-api"],
    ["https://gw.example.com/mop/v1/", "https://gw.example.com/mop/v1", "https://gw.example.com/mop/v1"],
  ])("%s → signed %s, keyed %s", (given, signed, keyed) => {
    expect(createSignedClient({ baseUrl: given, appKey, appSecret }).baseUrl).toBe(signed);
    expect(createKeyedClient({ baseUrl: given, apiKey: "k" }).baseUrl).toBe(keyed);
  });
});

describe("a client pointed at the other interface", () => {
  let sandbox: ListeningSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it("signed client at /v1: the ApiError names the key-based interface, its error and the baseUrl", async () => {
    sandbox = await createSandbox().listen();
    const client = createSignedClient({ baseUrl: `${sandbox.url}/v1`, appKey: "demo-app-key", appSecret: "demo-app-secret", retry: false });
    const error = (await client.call("getMerchant", { params: { path: { merchantId: 10001 } } }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.errorName).toBeDefined();
    expect(error.message).toContain("key-based interface (/v1)");
    expect(error.message).toContain(error.errorName!);
    expect(error.message).toContain(`check baseUrl (${sandbox.url}/v1)`);
    expect(error.message).not.toMatch(/undefined/);
  });

  it("key-based client at /open-api/v1: the ApiError names the signed interface", async () => {
    sandbox = await createSandbox().listen();
    const client = createKeyedClient({ baseUrl: `${sandbox.url}/open-api/v1`, apiKey: "demo-api-key", retry: false });
    const error = (await client.call("listAccountMerchants").catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toContain("signed interface (/open-api/v1)");
    expect(error.errorName).toMatch(/^[A-Z_]+$/);
  });
});

describe("ids the sandbox refuses say why", () => {
  it("a 20-digit id is refused as too large for int64, not as 'not digits'", async () => {
    const sandbox = await createSandbox().listen();
    try {
      const client = createSignedClient({ baseUrl: `${sandbox.url}/open-api/v1`, appKey: "demo-app-key", appSecret: "demo-app-secret", retry: false });
      const error = (await client
        .call("getOrder", { params: { path: { orderId: 12345678901234567890n }, query: { merchantId: 10001 } } })
        .catch((e: unknown) => e)) as ApiError;
      expect(error).toBeInstanceOf(ApiError);
      expect(error.errorName).toBe("VALIDATION_FAILED");
      expect(error.message).toContain("orderId");
      expect(error.message).toContain("9223372036854775807 (int64)");
      expect(error.message).not.toContain("digits only");
    } finally {
      await sandbox.close();
    }
  });
});
