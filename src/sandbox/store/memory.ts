// The in-memory SandboxStore: maps keyed by id, rebuilt from the fixtures on reset.
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

export function createMemoryStore(fixtures: SandboxFixtures): SandboxStore {
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
    tradesByOutTradeNo = new Map();
    refunds = [];
    memberCards = new Map();
    applications = new Map();
    sequences = new Map();
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
    saveOrder: (order) => void orders.set(order.id, order),

    trade: (tradeNo) => trades.get(tradeNo),
    tradeByOutTradeNo: (appKey, outTradeNo) => tradesByOutTradeNo.get(customerKey(appKey, outTradeNo)),
    trades: () => [...trades.values()],
    saveTrade(trade, options = {}) {
      trades.set(trade.tradeNo, trade);
      if (options.claimOutTradeNo) tradesByOutTradeNo.set(customerKey(trade.appKey, trade.outTradeNo), trade);
    },

    saveRefund: (refund) => void refunds.push(refund),
    refunds: () => [...refunds],

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
