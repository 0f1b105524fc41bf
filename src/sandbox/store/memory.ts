// The in-memory SandboxStore: maps keyed by id, rebuilt from the fixtures on reset.
import { RefusalError, signedError } from "../errors.js";
import type { SandboxFixtures } from "../fixtures/load.js";
import type {
  ApiKeyRecord,
  AppRecord,
  CardTemplateRecord,
  CreditApplicationRecord,
  CustomerRecord,
  MemberCardRecord,
  MerchantRecord,
  OrderRecord,
  RefundRecord,
  SandboxStore,
  SequenceName,
  StoreRecord,
  TradeRecord,
} from "./types.js";

function byId<T extends { id: bigint }>(records: readonly T[]): Map<bigint, T> {
  return new Map(records.map((record) => [record.id, record]));
}

const customerKey = (appKey: string, id: string | bigint) => `${appKey.length}:${appKey}:${String(id)}`;

/** Orders and trades one app may hold at once (docs/sandbox.md "Limits"); a reset frees them. */
export interface StoreQuotas {
  /** Default 2,000 (an order with 100 large items takes about 170 KB). */
  maxOrdersPerApp: number;
  /** Default 10,000 (a trade takes about 2 KB at most). */
  maxTradesPerApp: number;
}

export const DEFAULT_STORE_QUOTAS: Readonly<StoreQuotas> = Object.freeze({ maxOrdersPerApp: 2_000, maxTradesPerApp: 10_000 });

function quotaError(kind: "orders" | "payment trades", appKey: string, limit: number): RefusalError {
  return signedError(
    "APP_QUOTA_EXCEEDED",
    `App ${appKey} already has ${limit} ${kind}, as many as the sandbox keeps per app; reset the sandbox (POST /sandbox/reset) or use another app.`,
  );
}

export function createMemoryStore(fixtures: SandboxFixtures, quotas: StoreQuotas = DEFAULT_STORE_QUOTAS): SandboxStore {
  let apps = new Map<string, AppRecord>();
  let apiKeys = new Map<string, ApiKeyRecord>();
  let merchants = new Map<bigint, MerchantRecord>();
  let stores = new Map<bigint, StoreRecord>();
  let templates = new Map<bigint, CardTemplateRecord>();
  let customersByOpenId = new Map<string, CustomerRecord>();
  let customersByAppUserId = new Map<string, CustomerRecord>();
  let orders = new Map<bigint, OrderRecord>();
  let trades = new Map<string, TradeRecord>();
  let tradesByOutTradeNo = new Map<string, TradeRecord>();
  let refunds: RefundRecord[] = [];
  let refundsByOutRefundNo = new Map<string, RefundRecord>();
  let memberCards = new Map<bigint, MemberCardRecord>();
  let applications = new Map<bigint, CreditApplicationRecord>();
  let sequences = new Map<SequenceName, number>();

  function load(): void {
    // A private copy, so a reset always starts from the fixtures as loaded.
    const data = structuredClone(fixtures);
    apps = new Map(data.apps.map((app) => [app.appKey, app]));
    apiKeys = new Map(data.apiKeys.map((key) => [key.apiKey, key]));
    merchants = byId(data.merchants);
    stores = byId(data.stores);
    templates = byId(data.cardTemplates);
    customersByOpenId = new Map();
    customersByAppUserId = new Map();
    for (const customer of data.customers) saveCustomer(customer);
    orders = new Map();
    trades = new Map();
    ordersPerApp = new Map();
    tradesPerApp = new Map();
    tradesByOutTradeNo = new Map();
    refunds = [];
    refundsByOutRefundNo = new Map();
    memberCards = new Map();
    applications = new Map();
    sequences = new Map();
  }

  let ordersPerApp = new Map<string, number>();
  let tradesPerApp = new Map<string, number>();

  /** Counts a new record of its app, or throws 100018 before anything is stored. */
  function claim(counts: Map<string, number>, appKey: string, limit: number, kind: "orders" | "payment trades"): void {
    const count = counts.get(appKey) ?? 0;
    if (count >= limit) throw quotaError(kind, appKey, limit);
    counts.set(appKey, count + 1);
  }

  function saveCustomer(customer: CustomerRecord): void {
    customersByOpenId.set(customerKey(customer.appKey, customer.openUserId), customer);
    customersByAppUserId.set(customerKey(customer.appKey, customer.appUserId), customer);
  }

  load();

  return {
    app: (appKey) => apps.get(appKey),
    apps: () => [...apps.values()],
    apiKey: (key) => apiKeys.get(key),
    merchant: (id) => merchants.get(id),
    merchants: () => [...merchants.values()],
    store: (id) => stores.get(id),
    stores: () => [...stores.values()],
    cardTemplate: (id) => templates.get(id),
    cardTemplates: () => [...templates.values()],

    customerByOpenUserId: (appKey, openUserId) => customersByOpenId.get(customerKey(appKey, openUserId)),
    customerByAppUserId: (appKey, appUserId) => customersByAppUserId.get(customerKey(appKey, appUserId)),
    saveCustomer,

    order: (id) => orders.get(id),
    orders: () => [...orders.values()],
    saveOrder(order) {
      if (!orders.has(order.id)) claim(ordersPerApp, order.appKey, quotas.maxOrdersPerApp, "orders");
      orders.set(order.id, order);
    },

    trade: (tradeNo) => trades.get(tradeNo),
    tradeByOutTradeNo: (appKey, outTradeNo) => tradesByOutTradeNo.get(customerKey(appKey, outTradeNo)),
    trades: () => [...trades.values()],
    saveTrade(trade, options = {}) {
      if (!trades.has(trade.tradeNo)) claim(tradesPerApp, trade.appKey, quotas.maxTradesPerApp, "payment trades");
      trades.set(trade.tradeNo, trade);
      if (options.claimOutTradeNo) tradesByOutTradeNo.set(customerKey(trade.appKey, trade.outTradeNo), trade);
    },

    saveRefund(refund) {
      refunds.push(refund);
      if (refund.outRefundNo !== null) refundsByOutRefundNo.set(customerKey(refund.appKey, refund.outRefundNo), refund);
    },
    refunds: () => [...refunds],
    refundByOutRefundNo: (appKey, outRefundNo) => refundsByOutRefundNo.get(customerKey(appKey, outRefundNo)),

    memberCard: (id) => memberCards.get(id),
    saveMemberCard: (card) => void memberCards.set(card.id, card),

    application: (id) => applications.get(id),
    saveApplication: (application) => void applications.set(application.id, application),

    nextSequence(name) {
      const next = (sequences.get(name) ?? 0) + 1;
      sequences.set(name, next);
      return next;
    },

    reset: load,
  };
}
