// The adapters for generated clients: createLosslessFetch (json() keeps int64 exact) and
// createSigningFetch (signs the exact bytes, never follows a redirect), against a real loopback
// server whose signature check is the signing module's verifier.
import { afterEach, describe, expect, it } from "vitest";
import { ClientConfigError, createLosslessFetch, createSigningFetch, losslessFetch, LosslessJsonResponse } from "../../src/index.js";
import { appKey, appSecret, okEnvelope, startServer, type TestServer } from "./support.js";

let server: TestServer | undefined;
let other: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  await other?.close();
  server = other = undefined;
});

const BIG = "9007199254740993";

describe("createLosslessFetch", () => {
  it("answers json() with ids above 2^53 as exact bigints; text(), status and headers are the server's", async () => {
    server = await startServer(() => ({ status: 201, headers: { "content-type": "application/json", "x-trace": "t1" }, body: `{"code":0,"data":{"id":${BIG},"small":7,"price":1.5}}` }));
    const answer = await losslessFetch(`${server.origin}/x`);
    expect(answer).toBeInstanceOf(LosslessJsonResponse);
    expect(answer.status).toBe(201);
    expect(answer.headers.get("x-trace")).toBe("t1");
    expect(answer.url).toBe(`${server.origin}/x`);
    expect(await answer.clone().text()).toBe(`{"code":0,"data":{"id":${BIG},"small":7,"price":1.5}}`);
    expect(await answer.json()).toEqual({ code: 0, data: { id: 9007199254740993n, small: 7, price: 1.5 } });
    expect(answer.bodyUsed).toBe(true);
    // The engine's own fetch rounds the same id: what the adapter is for.
    expect(((await (await fetch(`${server.origin}/x`)).json()) as { data: { id: number } }).data.id).toBe(9007199254740992);
  });

  it("keeps json() lossless on a clone, and each copy readable once", async () => {
    server = await startServer(() => okEnvelope(BIG));
    const answer = await losslessFetch(`${server.origin}/x`);
    const copy = answer.clone();
    expect(copy).toBeInstanceOf(LosslessJsonResponse);
    expect(((await copy.json()) as { data: bigint }).data).toBe(9007199254740993n);
    expect(((await answer.json()) as { data: bigint }).data).toBe(9007199254740993n);
    await expect(answer.json()).rejects.toThrow(TypeError);
  });

  it("passes requests through unchanged and wraps the fetch it is given", async () => {
    server = await startServer((request) => okEnvelope(JSON.stringify(request.body.toString("utf8"))));
    const seen: string[] = [];
    const wrapped = createLosslessFetch({
      fetch: async (input, init) => {
        seen.push(new Request(input, init).method);
        return fetch(input, init);
      },
    });
    const answer = await wrapped(`${server.origin}/echo`, { method: "POST", body: `{"id":${BIG}}`, headers: { "content-type": "application/json" } });
    expect(seen).toEqual(["POST"]);
    expect(await answer.json()).toMatchObject({ data: `{"id":${BIG}}` });
  });

  it("answers a SyntaxError for a body that is not JSON, as Response.json() does", async () => {
    server = await startServer(() => ({ headers: { "content-type": "text/html" }, body: "<h1>502</h1>" }));
    await expect((await losslessFetch(server.origin)).json()).rejects.toThrow(SyntaxError);
  });

  it("refuses an options value that is not an object, or a fetch that is not a function", () => {
    expect(() => createLosslessFetch("x" as never)).toThrow(ClientConfigError);
    expect(() => createLosslessFetch({ fetch: 1 as never })).toThrow(/fetch must be a function/);
  });
});

describe("createSigningFetch", () => {
  it("signs each request over the exact body bytes it sends, with a fresh nonce each time", async () => {
    server = await startServer(() => okEnvelope("null"));
    const signed = createSigningFetch({ appKey, appSecret });
    const body = `{"name":"拿铁 ☕","id":${BIG}}`;
    await signed(`${server.origin}/open-api/v1/orders`, { method: "POST", body, headers: { "content-type": "application/json" } });
    await signed(new Request(`${server.origin}/open-api/v1/merchants/1?x=1`));
    const [post, get] = server.received;
    expect(post!.body.toString("utf8")).toBe(body);
    expect(post!.verification.ok).toBe(true);
    expect(get!.url).toBe("/open-api/v1/merchants/1?x=1");
    expect(get!.verification.ok).toBe(true);
    expect(post!.headers["x-nonce"]).not.toBe(get!.headers["x-nonce"]);
  });

  it("does not follow a redirect: the 3xx comes back and the other origin receives nothing", async () => {
    other = await startServer(() => okEnvelope("null"));
    server = await startServer(() => ({ status: 307, headers: { location: `${other!.origin}/steal` }, body: "" }));
    const answer = await createSigningFetch({ appKey, appSecret })(`${server.origin}/open-api/v1/orders`, { method: "POST", body: "{}" });
    expect(answer.status).toBe(307);
    expect(other.received).toHaveLength(0);
  });

  it("refuses missing credentials with a ClientConfigError naming them", () => {
    expect(() => createSigningFetch({ appKey, appSecret: "" })).toThrow(expect.objectContaining({ field: "appSecret" }) as unknown as Error);
    expect(() => createSigningFetch({ appSecret } as never)).toThrow(expect.objectContaining({ field: "appKey" }) as unknown as Error);
  });
});
