// The client never follows a redirect (the signature and body would go to the Location's
// origin) and never buffers an answer beyond maxResponseBytes.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ClientConfigError, createKeyedClient, createSignedClient, DEFAULT_MAX_RESPONSE_BYTES, RedirectError, ResponseTooLargeError } from "../../src/index.js";
import { appKey, appSecret, okEnvelope, startServer, type TestServer } from "./support.js";

let server: TestServer | undefined;
let other: TestServer | undefined;
let raw: Server | undefined;
afterEach(async () => {
  await server?.close();
  await other?.close();
  if (raw) {
    raw.closeAllConnections();
    await new Promise<void>((resolve) => raw!.close(() => resolve()));
  }
  server = other = raw = undefined;
});

const order = { body: { merchantId: 10001, userId: 1, orderType: 1 as const, items: [{ itemType: 1 as const, itemId: 1, itemName: "x", price: 1, quantity: 1 }] } };

describe("redirects", () => {
  it.each([301, 302, 303, 307, 308])("a %i to another origin is a RedirectError; the other origin receives nothing", async (status) => {
    other = await startServer(() => okEnvelope("1"));
    server = await startServer(() => ({ status, headers: { location: `${other!.origin}/open-api/v1/orders` }, body: "" }));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret, retry: false });

    const error = await client.call("createOrder", order).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ httpStatus: status, location: `${other.origin}/open-api/v1/orders`, operationId: "createOrder" });
    expect((error as Error).message).toMatch(/does not follow redirects/);
    expect(other.received).toHaveLength(0);
    expect(server.received).toHaveLength(1);
  });

  it("refuses a redirect even when a call asks to follow it, and for the key-based client too", async () => {
    other = await startServer(() => okEnvelope("1"));
    server = await startServer(() => ({ status: 302, headers: { location: `${other!.origin}/x` }, body: "" }));
    const signed = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret, retry: false });
    await expect(signed.GET("/merchants/{merchantId}", { params: { path: { merchantId: 1 } }, redirect: "follow" } as never)).rejects.toBeInstanceOf(RedirectError);
    const keyed = createKeyedClient({ baseUrl: `${server.origin}/v1`, apiKey: "k", retry: false });
    await expect(keyed.call("listAccountMerchants")).rejects.toBeInstanceOf(RedirectError);
    expect(other.received).toHaveLength(0);
  });

  it("refuses an answer that an injected fetch reached by following a redirect", async () => {
    const followed = Object.defineProperties(new Response('{"code":0,"msg":"ok","data":1}'), {
      redirected: { value: true },
      url: { value: "https://elsewhere.example/final" },
    });
    const client = createSignedClient({ baseUrl: "http://127.0.0.1:9/open-api/v1", appKey, appSecret, fetch: async () => followed, retry: false });
    await expect(client.call("createOrder", order)).rejects.toMatchObject({ name: "RedirectError", location: "https://elsewhere.example/final" });
  });
});

/** A server that declares or streams an answer of the given size. */
async function bigAnswer(bytes: number, chunked: boolean): Promise<{ origin: string; sent: () => number }> {
  let sent = 0;
  raw = createServer((_req, res) => {
    res.writeHead(200, chunked ? { "content-type": "application/json" } : { "content-type": "application/json", "content-length": String(bytes) });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const write = () => {
      while (sent < bytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += piece.length;
        if (!res.write(piece)) return void res.once("drain", write);
      }
      res.end();
    };
    write();
  });
  await new Promise<void>((resolve) => raw!.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`, sent: () => sent };
}

describe("maxResponseBytes", () => {
  it("refuses an answer whose Content-Length is over the limit without reading it", async () => {
    const { origin } = await bigAnswer(300 * 1024 * 1024, false);
    const client = createSignedClient({ baseUrl: `${origin}/open-api/v1`, appKey, appSecret, retry: false, maxResponseBytes: 1024 });
    const error = await client.call("getMerchant", { params: { path: { merchantId: 1 } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ limitBytes: 1024, httpStatus: 200, operationId: "getMerchant" });
    expect((error as Error).message).toMatch(/314572800 bytes by its Content-Length/);
  });

  it("stops reading a chunked answer as soon as it passes the limit", async () => {
    const big = await bigAnswer(64 * 1024 * 1024, true);
    const client = createSignedClient({ baseUrl: `${big.origin}/open-api/v1`, appKey, appSecret, retry: false, maxResponseBytes: 256 * 1024 });
    const error = await client.call("getMerchant", { params: { path: { merchantId: 1 } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    // Only a little more than the limit crossed the socket buffers, not the 64 MiB.
    expect(big.sent()).toBeLessThan(16 * 1024 * 1024);
  });

  it("reads an answer at the limit; the default is 10 MiB", async () => {
    const body = '{"code":0,"msg":"success","data":7}';
    server = await startServer(() => okEnvelope("7"));
    const exact = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret, maxResponseBytes: Buffer.byteLength(body) });
    expect(await exact.call("createOrder", order)).toBe(7);
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(10 * 1024 * 1024);
  });

  it.each([0, -1, 1.5, "10", Number.POSITIVE_INFINITY])("refuses maxResponseBytes %s with a ClientConfigError", (value) => {
    expect(() => createSignedClient({ baseUrl: "http://127.0.0.1:4010", appKey, appSecret, maxResponseBytes: value as never })).toThrow(ClientConfigError);
  });
});
