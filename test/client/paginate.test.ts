import { afterEach, describe, expect, it } from "vitest";
import { keyedOperations } from "../../generated/keyed.operations.js";
import { signedOperations } from "../../generated/signed.operations.js";
import { ClientConfigError, createKeyedClient, createSignedClient, paginate } from "../../src/client/index.js";
import { appKey, appSecret, okEnvelope, startServer, type Answer, type Received, type TestServer } from "./support.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const STORE_MAX = signedOperations.listStores.query.pageSize.maximum;
const KEYED_MAX = keyedOperations.listAccountMerchants.query.limit.maximum;

/** A fake list of `total` items answering one page per request, with the given field names. */
function pagedList(total: number, fields: { page: string; size: string }, options: { capSize?: number } = {}) {
  return (request: Received): Answer => {
    const query = new URL(request.url, "http://x").searchParams;
    const page = Number(query.get("pageNo") ?? 1);
    const size = Math.min(Number(query.get("pageSize") ?? 10), options.capSize ?? Infinity);
    const ids = Array.from({ length: Math.max(0, Math.min(size, total - (page - 1) * size)) }, (_, i) => (page - 1) * size + i + 1);
    const list = ids.map((id) => `{"id":${id},"merchantId":1,"name":"Store ${id}","address":"a","phone":"p","latitude":31.2,"longitude":121.5,"status":0}`);
    return okEnvelope(`{"list":[${list.join(",")}],"total":${total},"${fields.page}":${page},"${fields.size}":${size}}`);
  };
}

const pageQueries = (received: Received[]) => received.map((r) => new URL(r.url, "http://x").searchParams);

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe("paginate", () => {
  it("reads every store across pages with the spec's largest page size and stops at the total", async () => {
    server = await startServer(pagedList(250, { page: "pageNo", size: "pageSize" }));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });

    const stores = await collect(paginate(client, "listStores", { merchantId: 1 }));

    expect(stores.map((store) => store.id)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    const queries = pageQueries(server.received);
    expect(queries.map((q) => q.get("pageNo"))).toEqual(["1", "2", "3"]);
    expect(queries.every((q) => q.get("pageSize") === String(STORE_MAX) && q.get("merchantId") === "1")).toBe(true);
    expect(server.received.every((r) => r.verification.ok)).toBe(true);
  });

  it("stops on the total without asking for an empty page when the total is a multiple of the page size", async () => {
    server = await startServer(pagedList(200, { page: "pageNo", size: "pageSize" }));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });
    expect(await collect(paginate(client, "listStores"))).toHaveLength(200);
    expect(server.received).toHaveLength(2);
  });

  it("reads listMerchants, which answers page/size instead of pageNo/pageSize", async () => {
    server = await startServer(pagedList(7, { page: "page", size: "size" }));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });
    const merchants = await collect(paginate(client, "listMerchants", { pageSize: 3, status: 0 }));
    expect(merchants).toHaveLength(7);
    expect(pageQueries(server.received).map((q) => [q.get("pageNo"), q.get("pageSize"), q.get("status")])).toEqual([
      ["1", "3", "0"],
      ["2", "3", "0"],
      ["3", "3", "0"],
    ]);
  });

  it("follows the page size the service answers when it caps the requested one", async () => {
    server = await startServer(pagedList(45, { page: "pageNo", size: "pageSize" }, { capSize: 20 }));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });
    // A naive "short page" check (20 < 100) would stop after the first page.
    expect(await collect(paginate(client, "listCardTemplates"))).toHaveLength(45);
    expect(server.received).toHaveLength(3);
  });

  it("stops at an empty page even if the total claims more", async () => {
    server = await startServer(() => okEnvelope('{"list":[],"total":1000,"pageNo":1,"pageSize":100}'));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });
    expect(await collect(paginate(client, "listStores"))).toEqual([]);
    expect(server.received).toHaveLength(1);
  });

  it("passes the required query of listNearbyStores along", async () => {
    server = await startServer(() => okEnvelope('{"list":[],"total":0,"pageNo":1,"pageSize":100}'));
    const client = createSignedClient({ baseUrl: `${server.origin}/open-api/v1`, appKey, appSecret });
    await collect(paginate(client, "listNearbyStores", { latitude: 31.23, longitude: 121.47, radius: 2000 }));
    expect(server.received[0]!.url).toBe("/open-api/v1/stores/nearby?latitude=31.23&longitude=121.47&radius=2000&pageNo=1&pageSize=100");
  });

  it("reads the key-based list's merchants and pagination {page, limit, total, pages}", async () => {
    const total = 130;
    server = await startServer((request) => {
      const query = new URL(request.url, "http://x").searchParams;
      const page = Number(query.get("page"));
      const limit = Number(query.get("limit"));
      const count = Math.max(0, Math.min(limit, total - (page - 1) * limit));
      const merchants = Array.from({ length: count }, (_, i) => ({
        id: String((page - 1) * limit + i + 1),
        name: "m",
        status: "active",
        created_at: "2026-01-01T00:00:00Z",
        updated_at: "2026-01-01T00:00:00Z",
      }));
      return {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: 200, message: "success", data: { merchants, pagination: { page, limit, total, pages: Math.ceil(total / limit) } } }),
      };
    });
    const client = createKeyedClient({ baseUrl: `${server.origin}/v1`, apiKey: "key-1" });

    const merchants = await collect(paginate(client, "listAccountMerchants", { status: "active" }));

    expect(merchants.map((m) => m.id)).toEqual(Array.from({ length: total }, (_, i) => String(i + 1)));
    expect(pageQueries(server.received).map((q) => [q.get("page"), q.get("limit")])).toEqual([
      ["1", String(KEYED_MAX)],
      ["2", String(KEYED_MAX)],
    ]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a zero page size", { pageSize: 0 }, "at least 1"],
    ["a negative page size", { pageSize: -5 }, "at least 1"],
    ["a fractional page size", { pageSize: 2.5 }, "whole number"],
    ["a page size above the spec's maximum", { pageSize: STORE_MAX + 1 }, `at most ${STORE_MAX}`],
    ["a zero start page", { pageNo: 0 }, "at least 1"],
  ])("refuses %s with a ClientConfigError at the call", (_name, query, message) => {
    const client = createSignedClient({ baseUrl: "http://127.0.0.1:9", appKey, appSecret });
    expect(() => paginate(client, "listStores", query)).toThrow(ClientConfigError);
    expect(() => paginate(client, "listStores", query)).toThrow(message);
  });

  it("refuses an operation that is not a list", () => {
    const client = createSignedClient({ baseUrl: "http://127.0.0.1:9", appKey, appSecret });
    // @ts-expect-error getOrder is not a list operation
    expect(() => paginate(client, "getOrder")).toThrow(/cannot page "getOrder"/);
  });
});
