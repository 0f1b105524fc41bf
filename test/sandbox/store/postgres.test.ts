// The store conformance suite against PostgreSQL (a throwaway cluster, a schema per test), and
// what only a store shared by several processes must show: two stores on one database see each
// other's records and refuse each other's duplicates, callback deliveries are leased to one
// instance at a time and taken over when a lease ends, migrations and fixtures are applied once
// and refused when they do not match.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandboxClock, defaultFixtures, DEFAULT_STORE_QUOTAS, StoreConflictError, StoreUnavailableError, type StoreQuotas } from "../../../src/sandbox/index.js";
import { openRecords, type StoreOptions } from "../../../src/sandbox/store/open.js";
import { createQuietLogger } from "../../../src/sandbox/logger.js";
import { LATEST_SCHEMA_VERSION } from "../../../src/sandbox/store/postgres/migrations.js";
import { postgresServerMissing, startPostgresServer, type PostgresServer } from "../../support/postgres.js";
import { APP, delivery, NOW, orderRecord, storeConformance, tradeRecord } from "./conformance.js";

let server: PostgresServer | undefined;
let url = "";
let schemas = 0;

beforeAll(async () => {
  if (postgresServerMissing) return;
  server = await startPostgresServer();
  url = await server.createDatabase(`mop_store_${process.pid}`);
}, 60_000);
afterAll(async () => {
  await server?.close();
}, 60_000);

function open(schema: string, quotas: StoreQuotas = DEFAULT_STORE_QUOTAS, options: StoreOptions = {}, now = NOW) {
  const base = { now: () => now };
  return openRecords(url, { fixtures: defaultFixtures(), quotas, clock: createSandboxClock(base), logger: createQuietLogger(), schema, poolSize: 5, ...options });
}

const freshSchema = () => `conformance_${(schemas += 1)}`;

describe.skipIf(postgresServerMissing)("PostgreSQL", () => {
  storeConformance("postgres", async (quotas) => {
    const store = open(freshSchema(), quotas);
    await store.open();
    return { records: store.records, close: () => store.close() };
  });

  it("two stores on one database read each other's records and refuse each other's duplicates", async () => {
    const schema = freshSchema();
    const [first, second] = [open(schema), open(schema)];
    try {
      await Promise.all([first.open(), second.open()]);
      const order = orderRecord();
      await first.records.transaction(APP, (tx) => tx.insertOrder(order));
      expect(await second.records.order(order.id)).toEqual(order);
      const trade = tradeRecord();
      await first.records.transaction(APP, (tx) => tx.insertTrade(trade));
      await expect(second.records.transaction(APP, (tx) => tx.insertTrade(tradeRecord(APP, { outTradeNo: trade.outTradeNo })))).rejects.toBeInstanceOf(StoreConflictError);
      // 20 check-then-insert transactions spread over both make one trade.
      const tradeNos = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? first : second).records.transaction(APP, async (tx) => {
            const existing = await tx.tradeByOutTradeNo(APP, "SPREAD");
            if (existing) return existing.tradeNo;
            const created = tradeRecord(APP, { outTradeNo: "SPREAD" });
            await tx.insertTrade(created);
            return created.tradeNo;
          }),
        ),
      );
      expect(new Set(tradeNos).size).toBe(1);
      await first.records.clockOffset.advance(5000);
      expect(await second.records.clockOffset.read()).toBe(5000);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("leases a callback delivery to one instance: claimed once, taken over when its lease ends, let go on close", async () => {
    const schema = freshSchema();
    const first = open(schema, DEFAULT_STORE_QUOTAS, { instanceId: "first", leaseMs: 300, pollIntervalMs: 1000 });
    const second = open(schema, DEFAULT_STORE_QUOTAS, { instanceId: "second", leaseMs: 300, pollIntervalMs: 1000 });
    try {
      await Promise.all([first.open(), second.open()]);
      const log = delivery(APP, { nextAttemptTime: NOW });
      await first.records.transaction(APP, (tx) => tx.enqueueCallback(log));
      // The instance that committed it holds it.
      expect(await second.records.callbackLog.claim(log)).toBeUndefined();
      expect(await second.records.callbackLog.pending()).toEqual([]);
      expect(await first.records.callbackLog.claim(log)).toMatchObject({ eventId: log.eventId });
      // The holder stops without letting go (a crash): once the lease ends another takes it.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await second.records.callbackLog.pending()).map((d) => d.eventId)).toEqual([log.eventId]);
      expect(await first.records.callbackLog.claim(log)).toBeUndefined();
      // Released on close, it is free at once.
      await second.records.callbackLog.release();
      expect(await first.records.callbackLog.claim(log)).toMatchObject({ eventId: log.eventId });
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("claims each due delivery for one poller when several poll at once (FOR UPDATE SKIP LOCKED)", async () => {
    const schema = freshSchema();
    const stores = ["a", "b", "c"].map((id) => open(schema, DEFAULT_STORE_QUOTAS, { instanceId: id, leaseMs: 60_000 }));
    try {
      await Promise.all(stores.map((store) => store.open()));
      const made = Array.from({ length: 30 }, () => delivery(APP, { nextAttemptTime: NOW }));
      await stores[0]!.records.transaction(APP, async (tx) => {
        for (const log of made) await tx.enqueueCallback(log);
      });
      await stores[0]!.records.callbackLog.release();
      const polled = await Promise.all(stores.map((store) => store.records.callbackLog.pending()));
      const ids = polled.flat().map((d) => d.eventId);
      expect(ids.sort()).toEqual(made.map((d) => d.eventId).sort());
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it("migrates a database once, records the version, refuses a newer schema, and waits for migrations when told to", async () => {
    const schema = freshSchema();
    const unmigrated = open(schema, DEFAULT_STORE_QUOTAS, { migrate: false });
    await expect(unmigrated.open()).rejects.toThrow(/at version 0, and this sandbox needs version \d+\. Apply the migrations first: mop sandbox migrate/);
    await unmigrated.close();
    const first = open(schema);
    const opened = await first.open();
    expect(opened).toMatchObject({ schemaVersion: LATEST_SCHEMA_VERSION, migrationsApplied: LATEST_SCHEMA_VERSION, fixturesLoaded: true });
    const again = open(schema, DEFAULT_STORE_QUOTAS, { migrate: false });
    const reopened = await again.open();
    expect(reopened).toMatchObject({ schemaVersion: LATEST_SCHEMA_VERSION, migrationsApplied: 0, fixturesLoaded: false });
    // One cashier-key secret per database, made by the first instance.
    expect(reopened!.cashierKeySecret.length).toBe(32);
    expect(reopened!.cashierKeySecret.equals(opened!.cashierKeySecret)).toBe(true);
    await again.close();
    await first.close();
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES (9999, 'from the future')`);
    await client.end();
    const older = open(schema);
    await expect(older.open()).rejects.toThrow(/migrated to version 9999 by a newer merchant-open-platform/);
    await older.close();
  });

  it("loads the fixtures once per database and refuses an instance with other fixtures", async () => {
    const schema = freshSchema();
    const first = open(schema);
    await first.open();
    const other = defaultFixtures();
    other.merchants[0]!.merchantName = "Another data set";
    const second = openRecords(url, { fixtures: other, quotas: DEFAULT_STORE_QUOTAS, clock: createSandboxClock(), logger: createQuietLogger(), schema });
    await expect(second.open()).rejects.toThrow(/loaded with other fixtures \(hash [0-9a-f]{12}, at .*\) than this sandbox's/);
    await Promise.all([first.close(), second.close()]);
  });

  it("names an unreachable server, a wrong password and a missing database without printing the password", async () => {
    const cases: [string, RegExp][] = [
      [`postgres://postgres:hunter2@127.0.0.1:1/x`, /PostgreSQL at 127\.0\.0\.1:1\/x does not answer \(ECONNREFUSED\)/],
      [url.replace(/:[^:@/]+@/, ":hunter2@"), /refused the user name or password/],
      [url.replace(/\/[^/]+$/, "/no_such_database"), /the database does not exist/],
    ];
    for (const [target, message] of cases) {
      const store = openRecords(target, { fixtures: defaultFixtures(), quotas: DEFAULT_STORE_QUOTAS, clock: createSandboxClock(), logger: createQuietLogger(), connectTimeoutMs: 2000 });
      const error = await store.open().then(() => undefined, (caught: unknown) => caught as Error);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error!.message).toMatch(message);
      expect(error!.message).not.toContain("hunter2");
      expect(error!.message).not.toContain("mop-test-secret");
      await store.close();
    }
  });
});
