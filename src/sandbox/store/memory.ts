// The in-memory SandboxRecords, the default for one developer: maps keyed by id, rebuilt from
// the fixtures on reset. It keeps the rules a database would (test/sandbox/store-conformance
// runs the same suite against it and PostgreSQL): one transaction per app at a time (an async
// lock), every change of a transaction applied at its end or not at all, unique keys and
// quotas checked by the store, and each read answering the caller's own copy.
import type { SandboxClock } from "../clock.js";
import type { SandboxFixtures } from "../fixtures/load.js";
import { createAppLocks } from "./app-locks.js";
import { createMemoryCallbackLog } from "./memory-outbox.js";
import { createMemoryFaultStore } from "../faults/store.js";
import { createReferenceRecords } from "./reference.js";
import { checkTransactionApp, quotaError, StoreConflictError, DEFAULT_STORE_QUOTAS, type StoreQuotas } from "./rules.js";
import type {
  ClockOffsetStore,
  CreditApplicationRecord,
  CustomerRecord,
  ListFilter,
  MemberCardRecord,
  OrderRecord,
  RecordReads,
  RecordsTransaction,
  RefundRecord,
  SandboxRecords,
  SequenceName,
  TradeRecord,
} from "./types.js";
import type { CallbackDelivery } from "../../server/index.js";

export { DEFAULT_STORE_QUOTAS, type StoreQuotas } from "./rules.js";

const pairKey = (appKey: string, id: string | bigint) => `${appKey.length}:${appKey}:${String(id)}`;
const copy = <T>(record: T): T => structuredClone(record);
const copyOrUndefined = <T>(record: T | undefined): T | undefined => (record === undefined ? undefined : structuredClone(record));

/** The tables a transaction reads and writes; a transaction's pending changes are a second set laid over the first. */
interface Tables {
  customers: Map<string, CustomerRecord>;
  appUserIdsByOpenUserId: Map<string, bigint>;
  orders: Map<bigint, OrderRecord>;
  trades: Map<string, TradeRecord>;
  tradeNosByOutTradeNo: Map<string, string>;
  refunds: Map<string, RefundRecord>;
  refundNosByOutRefundNo: Map<string, string>;
  refundNosByOrderId: Map<bigint, string>;
  memberCards: Map<bigint, MemberCardRecord>;
  applications: Map<bigint, CreditApplicationRecord>;
  /** Orders and trades each app holds (its quotas). */
  usage: Map<string, { orders: number; trades: number }>;
}

function emptyTables(): Tables {
  return {
    customers: new Map(),
    appUserIdsByOpenUserId: new Map(),
    orders: new Map(),
    trades: new Map(),
    tradeNosByOutTradeNo: new Map(),
    refunds: new Map(),
    refundNosByOutRefundNo: new Map(),
    refundNosByOrderId: new Map(),
    memberCards: new Map(),
    applications: new Map(),
    usage: new Map(),
  };
}

/** Copies every entry of the pending tables into the committed ones. */
function apply(base: Tables, pending: Tables): void {
  for (const name of Object.keys(pending) as (keyof Tables)[]) {
    const target = base[name] as Map<unknown, unknown>;
    for (const [key, value] of pending[name] as Map<unknown, unknown>) target.set(key, value);
  }
}

export interface MemoryStoreOptions {
  /** The sandbox clock whose offset this store keeps (the control API moves it). Default: an offset of its own. */
  clock?: SandboxClock;
}

export function createMemoryStore(fixtures: SandboxFixtures, quotas: StoreQuotas = DEFAULT_STORE_QUOTAS, options: MemoryStoreOptions = {}): SandboxRecords {
  const reference = createReferenceRecords(fixtures);
  const callbackLog = createMemoryCallbackLog();
  const withLock = createAppLocks();
  let tables = emptyTables();
  let sequences = new Map<SequenceName, number>();
  /** Moves on with every reset of all apps: a transaction that began before one commits nothing. */
  let generation = 0;

  function loadFixtureCustomers(into: Tables, appKey?: string): void {
    for (const customer of fixtures.customers) {
      if (appKey !== undefined && customer.appKey !== appKey) continue;
      into.customers.set(pairKey(customer.appKey, customer.appUserId), copy(customer));
      into.appUserIdsByOpenUserId.set(pairKey(customer.appKey, customer.openUserId), customer.appUserId);
    }
  }
  loadFixtureCustomers(tables);

  /** Reads through the pending tables of a transaction (when given) to the committed ones. */
  function reads(pending?: Tables): RecordReads {
    const get = <K, V>(pick: (t: Tables) => Map<K, V>, key: K): V | undefined => (pending ? pick(pending).get(key) : undefined) ?? pick(tables).get(key);
    const customer = (appKey: string, appUserId: bigint) => get((t) => t.customers, pairKey(appKey, appUserId));
    return {
      customerByOpenUserId: async (appKey, openUserId) => {
        const appUserId = get((t) => t.appUserIdsByOpenUserId, pairKey(appKey, openUserId));
        return appUserId === undefined ? undefined : copyOrUndefined(customer(appKey, appUserId));
      },
      customerByAppUserId: async (appKey, appUserId) => copyOrUndefined(customer(appKey, appUserId)),
      order: async (id) => copyOrUndefined(get((t) => t.orders, id)),
      trade: async (tradeNo) => copyOrUndefined(get((t) => t.trades, tradeNo)),
      tradeByOutTradeNo: async (appKey, outTradeNo) => {
        const tradeNo = get((t) => t.tradeNosByOutTradeNo, pairKey(appKey, outTradeNo));
        return tradeNo === undefined ? undefined : copyOrUndefined(get((t) => t.trades, tradeNo));
      },
      refundByOutRefundNo: async (appKey, outRefundNo) => {
        const refundNo = get((t) => t.refundNosByOutRefundNo, pairKey(appKey, outRefundNo));
        return refundNo === undefined ? undefined : copyOrUndefined(get((t) => t.refunds, refundNo));
      },
      memberCard: async (id) => copyOrUndefined(get((t) => t.memberCards, id)),
      application: async (id) => copyOrUndefined(get((t) => t.applications, id)),
    };
  }

  function transactionOf(appKey: string, pending: Tables, outbox: CallbackDelivery[]): RecordsTransaction {
    const has = <K>(pick: (t: Tables) => Map<K, unknown>, key: K) => pick(pending).has(key) || pick(tables).has(key);
    const usage = () => {
      const current = pending.usage.get(appKey) ?? tables.usage.get(appKey) ?? { orders: 0, trades: 0 };
      const next = { ...current };
      pending.usage.set(appKey, next);
      return next;
    };
    const existing = <K>(pick: (t: Tables) => Map<K, unknown>, key: K, what: string) => {
      if (!has(pick, key)) throw new Error(`${what} does not exist: insert it first`);
    };
    return {
      appKey,
      ...reads(pending),
      async insertCustomer(customer) {
        checkTransactionApp(appKey, customer.appKey, "customer");
        const openKey = pairKey(customer.appKey, customer.openUserId);
        if (has((t) => t.appUserIdsByOpenUserId, openKey)) throw new StoreConflictError(`openUserId ${JSON.stringify(customer.openUserId)} already has a customer of app ${appKey}`, { constraint: "customers_open_user_id" });
        const idKey = pairKey(customer.appKey, customer.appUserId);
        if (has((t) => t.customers, idKey)) throw new StoreConflictError(`appUserId ${customer.appUserId} is already a customer of app ${appKey}`, { constraint: "customers_app_user_id" });
        pending.customers.set(idKey, copy(customer));
        pending.appUserIdsByOpenUserId.set(openKey, customer.appUserId);
      },
      async updateCustomer(customer) {
        checkTransactionApp(appKey, customer.appKey, "customer");
        const idKey = pairKey(customer.appKey, customer.appUserId);
        existing((t) => t.customers, idKey, `customer ${customer.appUserId}`);
        pending.customers.set(idKey, copy(customer));
      },
      async insertOrder(order) {
        checkTransactionApp(appKey, order.appKey, "order");
        if (has((t) => t.orders, order.id)) throw new StoreConflictError(`order ${order.id} already exists`, { constraint: "orders_pkey" });
        const counts = usage();
        if (counts.orders >= quotas.maxOrdersPerApp) throw quotaError("orders", appKey, quotas.maxOrdersPerApp);
        counts.orders += 1;
        pending.orders.set(order.id, copy(order));
      },
      async updateOrder(order) {
        checkTransactionApp(appKey, order.appKey, "order");
        existing((t) => t.orders, order.id, `order ${order.id}`);
        pending.orders.set(order.id, copy(order));
      },
      async insertTrade(trade) {
        checkTransactionApp(appKey, trade.appKey, "trade");
        if (has((t) => t.trades, trade.tradeNo)) throw new StoreConflictError(`tradeNo ${trade.tradeNo} already exists`, { constraint: "trades_pkey" });
        const outKey = pairKey(trade.appKey, trade.outTradeNo);
        if (has((t) => t.tradeNosByOutTradeNo, outKey)) throw new StoreConflictError(`outTradeNo ${JSON.stringify(trade.outTradeNo)} already has a trade of app ${appKey}`, { constraint: "trades_out_trade_no" });
        const counts = usage();
        if (counts.trades >= quotas.maxTradesPerApp) throw quotaError("payment trades", appKey, quotas.maxTradesPerApp);
        counts.trades += 1;
        pending.trades.set(trade.tradeNo, copy(trade));
        pending.tradeNosByOutTradeNo.set(outKey, trade.tradeNo);
      },
      async updateTrade(trade) {
        checkTransactionApp(appKey, trade.appKey, "trade");
        existing((t) => t.trades, trade.tradeNo, `trade ${trade.tradeNo}`);
        pending.trades.set(trade.tradeNo, copy(trade));
      },
      async insertRefund(refund) {
        checkTransactionApp(appKey, refund.appKey, "refund");
        if (has((t) => t.refunds, refund.refundNo)) throw new StoreConflictError(`refundNo ${refund.refundNo} already exists`, { constraint: "refunds_pkey" });
        if (has((t) => t.refundNosByOrderId, refund.orderId)) throw new StoreConflictError(`order ${refund.orderId} was already refunded`, { constraint: "refunds_order_id" });
        const outKey = refund.outRefundNo === null ? undefined : pairKey(refund.appKey, refund.outRefundNo);
        if (outKey !== undefined && has((t) => t.refundNosByOutRefundNo, outKey)) {
          throw new StoreConflictError(`outRefundNo ${JSON.stringify(refund.outRefundNo)} already has a refund of app ${appKey}`, { constraint: "refunds_out_refund_no" });
        }
        pending.refunds.set(refund.refundNo, copy(refund));
        pending.refundNosByOrderId.set(refund.orderId, refund.refundNo);
        if (outKey !== undefined) pending.refundNosByOutRefundNo.set(outKey, refund.refundNo);
      },
      async insertMemberCard(card) {
        checkTransactionApp(appKey, card.appKey, "member card");
        if (has((t) => t.memberCards, card.id)) throw new StoreConflictError(`member card ${card.id} already exists`, { constraint: "member_cards_pkey" });
        pending.memberCards.set(card.id, copy(card));
      },
      async insertApplication(application) {
        checkTransactionApp(appKey, application.appKey, "credit application");
        if (has((t) => t.applications, application.id)) throw new StoreConflictError(`credit application ${application.id} already exists`, { constraint: "credit_applications_pkey" });
        pending.applications.set(application.id, copy(application));
      },
      async updateApplication(application) {
        checkTransactionApp(appKey, application.appKey, "credit application");
        existing((t) => t.applications, application.id, `credit application ${application.id}`);
        pending.applications.set(application.id, copy(application));
      },
      async nextSequence(name) {
        const next = (sequences.get(name) ?? 0) + 1;
        sequences.set(name, next);
        return next;
      },
      async enqueueCallback(delivery) {
        checkTransactionApp(appKey, delivery.appKey, "callback delivery");
        outbox.push(delivery);
      },
    };
  }

  function list<T extends { appKey: string }>(records: Iterable<T>, filter: ListFilter, newestFirst: (a: T, b: T) => number): T[] {
    const matching = [...records].filter((record) => filter.appKey === undefined || record.appKey === filter.appKey).sort(newestFirst);
    return (filter.limit === undefined ? matching : matching.slice(0, filter.limit)).map(copy);
  }

  let ownOffsetMs = 0;
  const clockOffset: ClockOffsetStore = options.clock
    ? {
        read: async () => options.clock!.offsetMs,
        advance: async (ms) => (options.clock!.advance(ms), options.clock!.offsetMs),
        reset: async () => (options.clock!.resetOffset(), 0),
      }
    : {
        read: async () => ownOffsetMs,
        advance: async (ms) => (ownOffsetMs += ms),
        reset: async () => (ownOffsetMs = 0),
      };

  return {
    kind: "memory",
    shared: false,
    ...reference,
    ...reads(),
    async transaction(appKey, work) {
      return withLock(appKey, async () => {
        const pending = emptyTables();
        const outbox: CallbackDelivery[] = [];
        const began = generation;
        const result = await work(transactionOf(appKey, pending, outbox));
        // No await from here on: the changes appear all at once (or, after a reset of every app
        // while it ran, not at all: as if it had committed just before the reset).
        if (began !== generation) return result;
        apply(tables, pending);
        for (const delivery of outbox) callbackLog.save(delivery);
        return result;
      });
    },
    orders: async (filter = {}) => list(tables.orders.values(), filter, (a, b) => b.createTime - a.createTime || (a.id < b.id ? 1 : -1)),
    trades: async (filter = {}) => list(tables.trades.values(), filter, (a, b) => b.createTime - a.createTime || (a.tradeNo < b.tradeNo ? 1 : -1)),
    refunds: async (filter = {}) => list(tables.refunds.values(), filter, (a, b) => b.createTime - a.createTime || (a.refundNo < b.refundNo ? 1 : -1)),
    async dueTrades(nowMs, limit = 1000) {
      const dueAt = (trade: TradeRecord) => (trade.status === "WAIT_BUYER_PAY" ? trade.expireTime : trade.status === "UNKNOWN" && trade.unknownUntil !== null ? trade.unknownUntil : Infinity);
      return [...tables.trades.values()]
        .filter((trade) => dueAt(trade) <= nowMs)
        .sort((a, b) => dueAt(a) - dueAt(b))
        .slice(0, limit)
        .map(copy);
    },
    callbackLog,
    faults: createMemoryFaultStore(),
    // One process: its own sessions (listen/sessions.ts) are all there is.
    listeners: { register: async () => undefined, renew: async () => true, unregister: async () => undefined },
    async reset(appKey) {
      if (appKey === undefined) {
        // Waits for no lock: a transaction in flight commits into the tables it started with.
        generation += 1;
        tables = emptyTables();
        sequences = new Map();
        loadFixtureCustomers(tables);
        callbackLog.remove();
        return;
      }
      await withLock(appKey, async () => {
        const next = emptyTables();
        const keep = <K, V>(from: Map<K, V>, into: Map<K, V>, ofOtherApp: (key: K, value: V) => boolean) => {
          for (const [key, value] of from) if (ofOtherApp(key, value)) into.set(key, value);
        };
        const other = (record: { appKey: string }) => record.appKey !== appKey;
        const prefix = pairKey(appKey, "");
        const otherKey = (key: string) => !key.startsWith(prefix);
        keep(tables.customers, next.customers, (_key, value) => other(value));
        keep(tables.appUserIdsByOpenUserId, next.appUserIdsByOpenUserId, otherKey);
        keep(tables.orders, next.orders, (_key, value) => other(value));
        keep(tables.trades, next.trades, (_key, value) => other(value));
        keep(tables.tradeNosByOutTradeNo, next.tradeNosByOutTradeNo, otherKey);
        keep(tables.refunds, next.refunds, (_key, value) => other(value));
        keep(tables.refundNosByOutRefundNo, next.refundNosByOutRefundNo, otherKey);
        keep(tables.refundNosByOrderId, next.refundNosByOrderId, (_key, refundNo) => other(tables.refunds.get(refundNo)!));
        keep(tables.memberCards, next.memberCards, (_key, value) => other(value));
        keep(tables.applications, next.applications, (_key, value) => other(value));
        keep(tables.usage, next.usage, (key) => key !== appKey);
        loadFixtureCustomers(next, appKey);
        tables = next;
        callbackLog.remove(appKey);
      });
    },
    clockOffset,
    health: async () => undefined,
    close: async () => undefined,
  };
}
