// A team sandbox: two sandboxes on one PostgreSQL database (a throwaway cluster, a database per
// test) behave as one platform. A record made through one is read through the other, a request
// accepted by one is a replay for the other, idempotent creations and refund races spread over
// both come out once, an acknowledged callback is delivered once whichever instance holds it,
// faults and the clock are shared, a reset takes one app's data and no more, and while the
// database is away nothing is accepted that could not be stored.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { signRequestHeaders } from "../../src/signing/index.js";
import { databaseName, postgresServerMissing, startPostgresServer, type PostgresServer } from "../support/postgres.js";
import { BASIC, DEMO, DEMO_USER, eventually, startReceiver, startSandbox, type Receiver, type TestSandbox } from "../support/sandbox.js";

let server: PostgresServer | undefined;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (!postgresServerMissing) server = await startPostgresServer();
}, 60_000);
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});
afterAll(async () => {
  await server?.close();
}, 60_000);

/** Two sandboxes on a fresh database, polling the callback log every 100 ms. */
async function team(label: string, options: Parameters<typeof startSandbox>[0] = {}): Promise<[TestSandbox, TestSandbox]> {
  const url = await server!.createDatabase(databaseName(label));
  const start = () => startSandbox({ store: url, storeOptions: { pollIntervalMs: 100, leaseMs: 1000, poolSize: 4 }, allowInsecureNotify: true, ...options });
  const first = await start();
  cleanups.push(() => first.close());
  const second = await start();
  cleanups.push(() => second.close());
  return [first, second];
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  cleanups.push(() => r.close());
  return r;
}

const ok = (answer: { json: any; text: string }) => {
  expect(answer.json?.code, answer.text).toBe(0);
  return answer.json.data;
};

async function paidOrder(sb: TestSandbox): Promise<bigint> {
  const orderId = await sb.createOrder();
  const paid = ok(await sb.signed({ path: `/orders/${orderId}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } }));
  ok(await sb.control("POST", `/trades/${paid.tradeNo}/pay`));
  return orderId;
}

describe.skipIf(postgresServerMissing)("two sandboxes on one PostgreSQL database", () => {
  it("answer for each other's records: an order, its trade and its history made on one are read on the other", async () => {
    const [first, second] = await team("records");
    const userId = await first.syncUser("team-user-1");
    const orderId = await first.createOrder({ userId });
    const read = ok(await second.signed({ path: `/orders/${orderId}?merchantId=10001` }));
    // The cashierUrl one instance made opens on the other.
    const { cashierUrl } = await first.createTrade();
    const page = await second.raw(new URL(cashierUrl).pathname + new URL(cashierUrl).search);
    expect(page.status).toBe(200);
    expect(read).toMatchObject({ id: orderId, status: 0, totalAmount: 3600 });
    const paid = ok(await second.signed({ path: `/orders/${orderId}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } }));
    ok(await first.control("POST", `/trades/${paid.tradeNo}/pay`));
    expect(ok(await second.signed({ path: `/payment/query?tradeNo=${paid.tradeNo}` })).tradeStatus).toBe("SUCCESS");
    expect(ok(await first.signed({ path: `/orders/${orderId}/status-history?merchantId=10001` })).map((change: { toStatus: number }) => change.toStatus)).toEqual([0, 1]);
    // The customer synced on the first is known to the second.
    expect(ok(await second.signed({ path: "/customers/sync", body: { openUserId: "team-user-1" } }))).toMatchObject({ appUserId: Number(userId), created: false });
  });

  it("refuse on one a request already accepted by the other (used nonces in the database)", async () => {
    const [first, second] = await team("replay");
    const body = JSON.stringify({ openUserId: "replayed-user" });
    const headers = { ...signRequestHeaders({ ...DEMO, body, now: () => first.sandbox.clock.now() }), "Content-Type": "application/json" };
    const send = (sb: TestSandbox) => sb.raw("/open-api/v1/customers/sync", { method: "POST", headers, body });
    expect((await send(first)).json.code).toBe(0);
    const replay = await send(second);
    expect(replay.status).toBe(401);
    expect(replay.json.code).toBe(100005);
  });

  it("make one trade of 20 parallel createCashierSession calls with one outTradeNo spread over both", async () => {
    const [first, second] = await team("idempotent");
    const body = { merchantId: 10001, outTradeNo: "TEAM-ONE-TRADE", totalAmount: 4250, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb" };
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).signed({ path: "/payment/cashier/create", body })));
    const tradeNos = new Set(answers.map((answer) => ok(answer).tradeNo as string));
    expect(tradeNos.size).toBe(1);
    expect((await first.sandbox.state.trades({ appKey: DEMO.appKey })).filter((trade) => trade.outTradeNo === "TEAM-ONE-TRADE")).toHaveLength(1);
    // Different parameters are refused by either.
    expect((await second.signed({ path: "/payment/cashier/create", body: { ...body, totalAmount: 1 } })).json.code).toBe(400002);
  });

  it("refund an order once when refunds race across instances", async () => {
    const [first, second] = await team("refund-race");
    const orderId = await paidOrder(first);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? first : second).signed({ method: "POST", path: `/orders/${orderId}/refund?merchantId=10001`, body: { reason: "race" } })),
    );
    const codes = answers.map((answer) => answer.json.code as number);
    expect(codes.filter((code) => code === 0)).toHaveLength(1);
    expect(codes.filter((code) => code === 300004)).toHaveLength(9);
    expect((await second.sandbox.state.refunds({ appKey: DEMO.appKey })).filter((refund) => refund.orderId === orderId)).toHaveLength(1);
  });

  it("deliver an acknowledged callback exactly once, and retry a refused one once per step of the schedule", async () => {
    const [first, second] = await team("callbacks", { callbackSchedule: [300, 300, 300] });
    const r = await receiver();
    const { tradeNo } = await first.createTrade({ notifyUrl: r.url });
    const eventId = ok(await second.control("POST", `/trades/${tradeNo}/pay`)).eventId as string;
    await r.waitFor(1);
    // Both instances poll the log every 100 ms; nothing more goes out.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(r.received).toHaveLength(1);
    const [delivered] = ok(await first.control("GET", `/callbacks?eventId=${eventId}`)).list;
    expect(delivered).toMatchObject({ status: "delivered", attempts: [{ attempt: 1, httpStatus: 200 }] });

    r.script.push({ status: 500 }, { status: 503 });
    const other = await first.createTrade({ notifyUrl: r.url });
    const retried = ok(await first.control("POST", `/trades/${other.tradeNo}/pay`)).eventId as string;
    await r.waitFor(4, 8000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(r.received.filter((received) => received.body.includes(retried))).toHaveLength(3);
    const [log] = ok(await second.control("GET", `/callbacks?eventId=${retried}`)).list;
    expect(log.status).toBe("delivered");
    expect(log.attempts.map((attempt: { httpStatus: number }) => attempt.httpStatus)).toEqual([500, 503, 200]);
  });

  it("share the clock offset: moved through one, it holds on the other at once, trades expiring", async () => {
    const [first, second] = await team("clock");
    const { tradeNo } = await first.createTrade({ expireMinutes: 5 });
    const moved = ok(await first.control("POST", "/clock/advance", { seconds: 600 }));
    expect(moved.expiredTrades).toBe(1);
    expect(ok(await second.control("GET", "/clock")).offsetSeconds).toBe(600);
    expect(ok(await second.signed({ path: `/payment/query?tradeNo=${tradeNo}` })).tradeStatus).toBe("CLOSED");
    ok(await second.control("POST", "/clock/reset"));
    expect(ok(await first.control("GET", "/clock")).offsetSeconds).toBe(0);
  });

  it("share faults: one set through one instance meets a request on the other, once", async () => {
    const [first, second] = await team("faults");
    ok(await first.control("POST", "/faults", { operationId: "listStores", kind: "internal-error", appKey: DEMO.appKey }));
    const faulted = await second.signed({ path: "/stores" });
    expect(faulted.status).toBe(500);
    expect(faulted.json.msg).toMatch(/sandbox fault flt_1/);
    expect((await first.signed({ path: "/stores" })).json.code).toBe(0);
    // The hit is completed once the answer is out: read it when it is.
    const fault = await eventually(async () => {
      const [found] = ok(await second.control("GET", "/faults")).list;
      return found?.hits[0]?.status !== null && found;
    });
    expect(fault).toMatchObject({ faultId: "flt_1", remaining: 0, hits: [{ status: 500, code: 100099, appKey: DEMO.appKey }] });
  });

  it("reset one app at a time: without appKey the reset is refused, with it only that app's data goes", async () => {
    const [first, second] = await team("reset");
    const mine = await first.createOrder();
    const basicUser = await first.syncUser("basic-team-user", BASIC);
    const theirs = ok(await first.signed({ path: "/orders", body: { merchantId: 10001, userId: basicUser, orderType: 1, items: [{ itemType: 1, itemId: 1, itemName: "Tea", price: 100, quantity: 1 }] }, app: BASIC }));
    const refused = await second.control("POST", "/reset");
    expect(refused.status).toBe(400);
    expect(refused.json.msg).toMatch(/query\.appKey is required: this sandbox keeps its records in a database that a team shares/);
    expect((await second.control("POST", "/reset?appKey=no-such-app")).json.msg).toMatch(/query\.appKey "no-such-app" is not an app/);
    ok(await second.control("POST", `/reset?appKey=${DEMO.appKey}`));
    expect((await first.signed({ path: `/orders/${mine}?merchantId=10001` })).json.code).toBe(300001);
    expect(ok(await first.signed({ path: `/orders/${theirs}?merchantId=10001`, app: BASIC })).id).toBe(BigInt(theirs));
    // The fixture customer of the reset app is there again.
    expect(ok(await second.signed({ path: "/customers/sync", body: { openUserId: "user-4711" } }))).toMatchObject({ appUserId: Number(DEMO_USER), created: false });
  });

  it("answer 503 with Retry-After while the database is away, accept nothing, say so on /sandbox/health, and serve again once it is back", async () => {
    const [first, second] = await team("outage");
    const orderId = await first.createOrder();
    expect((await first.raw("/sandbox/health")).json).toMatchObject({ status: "ok", store: { kind: "postgres", status: "ok" }, nonceStore: { kind: "postgres", status: "ok" } });
    await server!.stop();
    try {
      const refused = await second.signed({ path: "/customers/sync", body: { openUserId: "during-outage" } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.json).toMatchObject({ code: 100099, data: null });
      expect(refused.json.msg).toMatch(/cannot reach its store now \(PostgreSQL at 127\.0\.0\.1:\d+\/\w+ does not answer/);
      expect(refused.text).not.toContain("mop-test-secret");
      const keyed = await first.keyed("/merchants");
      expect(keyed.status).toBe(503);
      expect(keyed.json).toMatchObject({ code: 500, data: null });
      expect((await first.control("POST", `/orders/${orderId}/start-service`)).status).toBe(503);
      const health = await first.raw("/sandbox/health");
      expect(health.status).toBe(503);
      expect(health.json).toMatchObject({ status: "unavailable", store: { status: "unavailable" }, nonceStore: { status: "unavailable" } });
      expect(health.text).not.toContain("mop-test-secret");
    } finally {
      await server!.start();
    }
    await eventually(async () => (await first.raw("/sandbox/health")).status === 200, 10_000);
    expect(ok(await second.signed({ path: `/orders/${orderId}?merchantId=10001` })).id).toBe(orderId);
    expect(ok(await second.signed({ path: "/customers/sync", body: { openUserId: "after-outage" } })).created).toBe(true);
  }, 40_000);
});
