// The safety net: an answer that does not fit the spec is never sent as is. The server kit's
// pipeline is assembled around deliberately broken handlers, and the answer must be
// 100099 / HTTP 500 with the validation failure logged loudly.
import express from "express";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { signedError } from "../../src/server/index.js";
import { createOperationRouter } from "../../src/server/internal.js";
import { captureLogger } from "../support/sandbox.js";

const logs = captureLogger();
let url = "";
let close: () => Promise<void>;

beforeAll(async () => {
  // The kit's pipeline over the signed spec, without the signature check.
  const router = createOperationRouter({
    spec: "signed",
    dialect: "signed",
    logger: logs,
    beforeBody: [],
    afterBody: [],
    checks: [],
    facts: () => ({}),
    handlers: {
      // A list item without its required fields, and a page without `size`.
      listMerchants: () => ({ list: [{ id: 1 }], total: 1, page: 1 }),
      // An id above 2^53 is fine; an id of 0 is not (minimum 1).
      getMerchant: () => ({ id: 0n }),
      // 403 is not a declared answer of syncCustomer.
      syncCustomer: () => {
        throw signedError("MERCHANT_DATA_FORBIDDEN", "not declared here");
      },
      // A bug: a plain exception.
      getStore: () => {
        throw new TypeError("undefined is not a function");
      },
    },
  });
  const app = express().use("/open-api", router);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(`${url}${path}`, init);
  return { status: response.status, json: (await response.json()) as { code: number; msg: string; data: unknown } };
}

it("answers 100099 instead of a success body that fails response validation, and logs it", async () => {
  const before = logs.errors.length;
  const answer = await call("/open-api/v1/merchants");
  expect(answer).toEqual({ status: 500, json: { code: 100099, msg: expect.any(String), data: null } });
  const logged = logs.errors.slice(before);
  expect(logged).toHaveLength(1);
  expect(logged[0]!.message).toMatch(/failed response validation/);
  expect(JSON.stringify(logged[0]!.details?.validation)).toMatch(/size/);
});

it("checks ids beyond 2^53 by value too", async () => {
  expect((await call("/open-api/v1/merchants/5")).json.code).toBe(100099);
});

it("answers 100099 for an error status the operation does not declare", async () => {
  const answer = await call("/open-api/v1/customers/sync", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"openUserId":"a"}' });
  expect(answer.status).toBe(500);
  expect(answer.json.code).toBe(100099);
});

it("answers 100099 for an exception, without leaking it", async () => {
  const before = logs.errors.length;
  const answer = await call("/open-api/v1/stores/1");
  expect(answer.status).toBe(500);
  expect(answer.json.code).toBe(100099);
  expect(answer.json.msg).not.toMatch(/undefined is not a function/);
  expect(logs.errors.length).toBe(before + 1);
});
