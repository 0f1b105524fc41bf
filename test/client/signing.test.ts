import { afterEach, describe, expect, it } from "vitest";
import type { Middleware } from "openapi-fetch";
import { createSignedClient } from "../../src/client/index.js";
import { sign } from "../../src/signing/index.js";
import { appKey, appSecret, okEnvelope, startServer, type TestServer } from "./support.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const order = (remark: string) => ({
  merchantId: 10001,
  userId: 20001,
  orderType: 1 as const,
  remark,
  items: [{ itemType: 1 as const, itemId: 30001, itemName: "Latte", price: 2800, quantity: 1 }],
});

describe("the signing middleware", () => {
  it.each([
    ["an ASCII body", "no sugar"],
    ["a multi-byte UTF-8 body", "少糖，去冰 ☕ — café"],
  ])("signs the exact body bytes that are sent (%s)", async (_name, remark) => {
    server = await startServer(() => okEnvelope("70001"));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });

    await expect(client.call("createOrder", { body: order(remark) })).resolves.toBe(70001);

    const [received] = server.received;
    expect(received?.verification).toMatchObject({ ok: true, appKey });
    // The bytes on the wire are the compact JSON of the body, and the signature is theirs.
    const sent = Buffer.from(JSON.stringify(order(remark)), "utf8");
    expect(received?.body.equals(sent)).toBe(true);
    const headers = received!.headers;
    expect(headers["x-sign"]).toBe(
      sign({ appKey, appSecret, timestamp: String(headers["x-timestamp"]), nonce: String(headers["x-nonce"]), body: received!.body }),
    );
    expect(headers["content-type"]).toBe("application/json");
  });

  it("signs a GET with the empty body", async () => {
    server = await startServer(() => okEnvelope('{"list":[],"total":0,"pageNo":1,"pageSize":10}'));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });
    await client.call("listStores");
    expect(server.received[0]?.body.length).toBe(0);
    expect(server.received[0]?.verification.ok).toBe(true);
  });

  it("runs after an app middleware that rewrites the body and adds a header, and signs the result", async () => {
    server = await startServer(() => okEnvelope("70001"));
    const rewrite: Middleware = {
      async onRequest({ request }) {
        const body = JSON.parse(await request.text()) as Record<string, unknown>;
        const headers = new Headers(request.headers);
        headers.set("X-Trace-Id", "trace-1");
        return new Request(request.url, { method: request.method, headers, body: JSON.stringify({ ...body, remark: "rewritten ✓" }) });
      },
    };
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret, middleware: [rewrite] });

    await client.call("createOrder", { body: order("original") });

    const [received] = server.received;
    expect(received?.verification.ok).toBe(true);
    expect(JSON.parse(received!.body.toString("utf8"))).toMatchObject({ remark: "rewritten ✓" });
    expect(received?.headers["x-trace-id"]).toBe("trace-1");
  });

  it("stays last when middleware is added later with use(), and for per-call middleware", async () => {
    server = await startServer(() => okEnvelope("70001"));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });
    const appendRemark = (suffix: string): Middleware => ({
      async onRequest({ request }) {
        const body = JSON.parse(await request.text()) as { remark: string };
        return new Request(request, { body: JSON.stringify({ ...body, remark: body.remark + suffix }) });
      },
    });
    client.use(appendRemark("+global"));

    await client.call("createOrder", { body: order("r"), middleware: [appendRemark("+call")] });

    const [received] = server.received;
    expect(received?.verification.ok).toBe(true);
    expect(JSON.parse(received!.body.toString("utf8"))).toMatchObject({ remark: "r+global+call" });
  });

  it("uses the injected clock and nonce", async () => {
    server = await startServer(() => okEnvelope("70001"));
    const client = createSignedClient({
      baseUrl: `${server.origin}/open-api/v1`,
      appKey,
      appSecret,
      now: () => Date.now() + 1234,
      nonce: () => "fixed-nonce-0001",
    });
    await client.call("createOrder", { body: order("x") });
    const headers = server.received[0]!.headers;
    expect(headers["x-nonce"]).toBe("fixed-nonce-0001");
    expect(headers["x-timestamp"]).toMatch(/^\d{10}$/);
  });
});
