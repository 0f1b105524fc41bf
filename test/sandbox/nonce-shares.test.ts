// One app cannot use up the nonce capacity the other apps share: each app of the fixtures has
// its own share (capacity ÷ max(4, apps)), and only the app over its share gets 100006.
import { afterAll, beforeAll, expect, it } from "vitest";
import { BASIC, DEMO, startSandbox, type TestSandbox } from "../support/sandbox.js";

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ nonceCapacity: 8 });
});
afterAll(() => sandbox?.close());

it("refuses only the app that has used its share of the nonce store", async () => {
  const sync = (app: typeof DEMO | typeof BASIC, n: number) => sandbox.signed({ path: "/customers/sync", body: { openUserId: `share-${n}` }, app });
  expect((await sync(DEMO, 1)).json.code).toBe(0);
  expect((await sync(DEMO, 2)).json.code).toBe(0);
  const refused = await sync(DEMO, 3);
  expect(refused.status).toBe(429);
  expect(refused.json.code).toBe(100006);
  expect(refused.json.msg).toMatch(/from this app/);
  expect((await sync(BASIC, 4)).json.code).toBe(0);
  expect((await sync(BASIC, 5)).json.code).toBe(0);
});
