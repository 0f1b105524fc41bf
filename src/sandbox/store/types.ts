// The sandbox's state behind one interface, in memory (memory.ts) or in PostgreSQL
// (postgres/records.ts). Records are plain objects; ids are bigint, amounts are fen (number),
// times are epoch ms (sandbox clock). Domain code reads a record (its own copy), changes it and
// saves it in a transaction of its app.
//
// A record is the wire schema it is answered as (generated/signed.ts), as stored: int64 ids as
// bigint, date-times as epoch ms, plus what only the sandbox keeps. Nothing is restated: a field
// the spec renames or retypes changes the record with it.
import type { components } from "../../../generated/signed.js";
import type { CallbackDelivery, CallbackOutbox } from "../../server/index.js";
import type { FaultStore } from "../faults/store.js";

type Schemas = components["schemas"];

/** A wire record as the store keeps it: int64 ids (`number | bigint` on the wire) as bigint, the `Times` date-times as epoch ms. */
type Stored<Wire, Times extends keyof Wire = never> = {
  [K in keyof Wire]-?: K extends Times ? (null extends Wire[K] ? number | null : number) : bigint extends Wire[K] ? Exclude<Wire[K], number> : Wire[K];
};

/** Optional request fields as stored: present, null when not sent. */
type NullWhenAbsent<Wire, Keys extends keyof Wire> = { [K in Keys]-?: Exclude<Wire[K], undefined> | null };

export type MerchantAccountStatus = "normal" | "disabled" | "cancelled";

export interface AppRecord {
  appKey: string;
  name: string;
  /** Valid secrets; several while one is rotated. The first signs callbacks. */
  appSecrets: string[];
  merchantIds: bigint[];
  permissions: string[];
  callbackUrl: string | null;
  rateLimitPerSecond?: number;
}

export interface ApiKeyMerchant {
  merchantId: bigint;
  status: "active" | "inactive" | "pending";
  createdAt: number;
  updatedAt: number;
}

export interface ApiKeyRecord {
  apiKey: string;
  merchants: ApiKeyMerchant[];
  rateLimitPerSecond?: number;
}

/** The merchant detail (storeCount is counted), its account status and the list item's cooperation time. */
export type MerchantRecord = Stored<Omit<Schemas["MerchantDetail"], "storeCount">> &
  Stored<Pick<Schemas["MerchantListItem"], "cooperateTime">, "cooperateTime"> & {
    accountStatus: MerchantAccountStatus;
  };

export type BusinessPeriod = Schemas["BusinessDay"]["periods"][number];

/** The store detail and its business hours' time zone, with the week of periods. */
export type StoreRecord = Stored<Schemas["StoreDetail"], "createTime"> &
  Pick<Schemas["BusinessHours"], "timezone"> & {
    /** Index 0 is Monday (dayOfWeek 1) … index 6 Sunday. */
    weekly: BusinessPeriod[][];
  };

export type CardTemplateRecord = Stored<Schemas["CardTemplate"]> & {
  merchantId: bigint;
  /** Fixture-only: direct opens the card at once, credit submits an application for review. */
  purchaseMode: "direct" | "credit";
  /** Fixture-only: top-up tiers of a stored-value card. */
  tiers: { id: bigint; amount: number }[];
};

export type CustomerRecord = Pick<Schemas["SyncCustomerRequest"], "openUserId"> &
  NullWhenAbsent<Schemas["SyncCustomerRequest"], "nickname" | "mobile" | "avatarUrl"> & {
    appKey: string;
    appUserId: bigint;
    createTime: number;
    updateTime: number;
  };

export type OrderStatus = Schemas["OrderStatus"];

/** The order item answered, and the cover and specification sent with it. */
export type OrderItemRecord = Stored<Schemas["OrderItem"]> & NullWhenAbsent<Schemas["OrderItemInput"], "itemCoverUrl" | "specValues">;

export type OrderStatusChange = Stored<Omit<Schemas["OrderStatusRecord"], "orderId">, "changeTime">;

export type OrderRecord = Stored<Omit<Schemas["Order"], "items">, "createTime" | "payTime" | "completeTime"> &
  Pick<Schemas["CreateOrderRequest"], "orderType"> &
  NullWhenAbsent<Schemas["CreateOrderRequest"], "voucherIds"> & {
    items: OrderItemRecord[];
    appKey: string;
    userId: bigint;
    couponId: bigint | null;
    history: OrderStatusChange[];
    /** Trades opened by payOrder, oldest first. */
    tradeNos: string[];
    /** The trade that paid the order. */
    paidTradeNo: string | null;
  };

/** The statuses a trade can be in (UNKNOWN only when a scenario asks for it: docs/scenarios.md). */
export type TradeStatus = Schemas["TradeStatus"];

/** What createCashierSession (or payOrder) asked for, and the trade's life. */
export type TradeRecord = Pick<Schemas["CreateCashierSessionRequest"], "outTradeNo" | "totalAmount" | "subject" | "notifyUrl"> &
  NullWhenAbsent<Schemas["CreateCashierSessionRequest"], "body" | "returnUrl" | "attach"> &
  Pick<Schemas["PaymentTrade"], "tradeNo"> & {
    appKey: string;
    merchantId: bigint;
    /** With its default applied. */
    expireMinutes: number;
    status: TradeStatus;
    createTime: number;
    expireTime: number;
    payTime: number | null;
    closeTime: number | null;
    closeReason: string | null;
    refundTime: number | null;
    /** Set for trades opened by payOrder. */
    orderId: bigint | null;
    /** An UNKNOWN trade: when its result becomes known (null: only when settled by hand), and what it becomes. */
    unknownUntil: number | null;
    unknownThen: "SUCCESS" | "CLOSED" | null;
  };

// Refunds, member cards and credit applications are never answered whole: sandbox-only records.
export interface RefundRecord {
  refundNo: string;
  appKey: string;
  orderId: bigint;
  merchantId: bigint;
  refundAmount: number;
  reason: string;
  outRefundNo: string | null;
  createTime: number;
}

export interface MemberCardRecord {
  id: bigint;
  appKey: string;
  merchantId: bigint;
  templateId: bigint;
  appUserId: bigint;
  tierId: bigint | null;
  createTime: number;
  applicationId: bigint | null;
}

export type CreditApplicationStatus = "PENDING" | "APPROVED" | "REJECTED";

export interface CreditApplicationRecord {
  id: bigint;
  appKey: string;
  merchantId: bigint;
  templateId: bigint;
  appUserId: bigint;
  tierId: bigint | null;
  status: CreditApplicationStatus;
  createTime: number;
  reviewTime: number | null;
  reason: string | null;
  memberCardId: bigint | null;
}

export type SequenceName = "order" | "appUser" | "trade" | "refund" | "memberCard" | "application";

/**
 * The fixtures' records, read only while the sandbox runs: every instance holds the same ones
 * (a shared store refuses an instance whose fixtures differ from those it was loaded with), so
 * they are read synchronously from memory.
 */
export interface ReferenceRecords {
  app(appKey: string): AppRecord | undefined;
  apps(): readonly AppRecord[];
  apiKey(apiKey: string): ApiKeyRecord | undefined;
  merchant(id: bigint): MerchantRecord | undefined;
  merchants(): readonly MerchantRecord[];
  store(id: bigint): StoreRecord | undefined;
  stores(): readonly StoreRecord[];
  cardTemplate(id: bigint): CardTemplateRecord | undefined;
  cardTemplates(): readonly CardTemplateRecord[];
}

/** Reads of the records requests create. Each answer is the caller's own copy: change it, then save it in a transaction. */
export interface RecordReads {
  customerByOpenUserId(appKey: string, openUserId: string): Promise<CustomerRecord | undefined>;
  customerByAppUserId(appKey: string, appUserId: bigint): Promise<CustomerRecord | undefined>;
  order(id: bigint): Promise<OrderRecord | undefined>;
  trade(tradeNo: string): Promise<TradeRecord | undefined>;
  tradeByOutTradeNo(appKey: string, outTradeNo: string): Promise<TradeRecord | undefined>;
  /** The app's refund made with this outRefundNo, if any (the refund's idempotency key). */
  refundByOutRefundNo(appKey: string, outRefundNo: string): Promise<RefundRecord | undefined>;
  memberCard(id: bigint): Promise<MemberCardRecord | undefined>;
  application(id: bigint): Promise<CreditApplicationRecord | undefined>;
}

/**
 * One app's changes, applied together or not at all. Every change of the records happens in
 * one: the store runs one transaction per app at a time (across every instance sharing it), so
 * a check and the insert it guards cannot interleave with another request's. The store
 * enforces its own rules besides, whatever the caller checked: an insert that would repeat a
 * key (an app's outTradeNo, outRefundNo or openUserId, an order refunded twice) throws
 * StoreConflictError, and one beyond the app's quota throws the 100018 refusal.
 */
export interface RecordsTransaction extends RecordReads {
  /** The app whose records this transaction may change. */
  readonly appKey: string;
  insertCustomer(customer: CustomerRecord): Promise<void>;
  updateCustomer(customer: CustomerRecord): Promise<void>;
  /** Counts against the app's order quota. */
  insertOrder(order: OrderRecord): Promise<void>;
  updateOrder(order: OrderRecord): Promise<void>;
  /** Claims the trade's (appKey, outTradeNo); counts against the app's trade quota. */
  insertTrade(trade: TradeRecord): Promise<void>;
  updateTrade(trade: TradeRecord): Promise<void>;
  /** Claims the refund's (appKey, outRefundNo) when it has one; one refund per order. */
  insertRefund(refund: RefundRecord): Promise<void>;
  insertMemberCard(card: MemberCardRecord): Promise<void>;
  insertApplication(application: CreditApplicationRecord): Promise<void>;
  updateApplication(application: CreditApplicationRecord): Promise<void>;
  /** The next value of a counter (1, 2, 3 …, shared by every app and instance; gaps are allowed). */
  nextSequence(name: SequenceName): Promise<number>;
  /**
   * Records a callback delivery with the change that caused it (a transactional outbox): it is
   * kept, and sent, only if the transaction commits. The caller hands it to the callback sender
   * after the commit.
   */
  enqueueCallback(delivery: CallbackDelivery): Promise<void>;
}

/** Which deliveries to list: all of them when empty; newest first, at most `limit`. */
export interface CallbackLogFilter {
  appKey?: string;
  eventId?: string;
  tradeNo?: string;
  applicationId?: bigint;
  status?: CallbackDelivery["status"];
  limit?: number;
}

/**
 * The callback outbox and delivery log: the server kit's CallbackOutbox (the sender saves each
 * delivery before and after every attempt, and claims it before an attempt, so that with
 * several instances each attempt is made by one of them), and the log the control API and the
 * dashboard read.
 */
export interface SandboxCallbackLog extends CallbackOutbox {
  claim(delivery: CallbackDelivery): CallbackDelivery | undefined | Promise<CallbackDelivery | undefined>;
  list(filter?: CallbackLogFilter): Promise<CallbackDelivery[]>;
  /** Lets go of every delivery this process holds (on close), so another instance may take them at once. */
  release(): Promise<void>;
  /** Before a resend asked for by hand: the delivery back to pending and this instance's; why not, when it cannot be. */
  reopen(eventId: string): Promise<string | undefined>;
}

/**
 * Which instance holds an app's `mop listen` session, when several share the records: that
 * instance attempts the app's callback deliveries (it forwards them to the listener). A
 * registration lapses unless renewed, so an instance that stopped loses it.
 */
export interface ListenerRegistry {
  /** This instance now holds the app's session (replacing any other, here or elsewhere). */
  register(appKey: string, sessionId: string): Promise<void>;
  /** Renews it; false when another session replaced it. */
  renew(appKey: string, sessionId: string): Promise<boolean>;
  unregister(appKey: string, sessionId: string): Promise<void>;
}

/** Newest first, at most `limit` (default: all), of one app or of all. */
export interface ListFilter {
  appKey?: string;
  limit?: number;
}

/** The sandbox clock's offset (how far it runs ahead of real time), kept where every instance reads it. */
export interface ClockOffsetStore {
  read(): Promise<number>;
  /** Moves it forward by `ms`; answers the new offset. */
  advance(ms: number): Promise<number>;
  /** Back to 0; answers 0. */
  reset(): Promise<number>;
}

/**
 * The sandbox's records (apps, merchants, stores, orders, trades, ...), read and written by the
 * domain modules through SandboxContext.records: in memory (createMemoryStore) or in PostgreSQL
 * (createPostgresStore). Not "store" in the API's words: a store is a shop (`records.store(storeId)`).
 * test/sandbox/store-conformance runs the same suite against each implementation.
 */
export interface SandboxRecords extends ReferenceRecords, RecordReads {
  /** "memory" or "postgres". */
  readonly kind: string;
  /** True when other processes may share the records (several instances): resets are then per app. */
  readonly shared: boolean;
  /** Runs `work` as one transaction of the app's records; a throw rolls every change back. Never nest them. */
  transaction<T>(appKey: string, work: (tx: RecordsTransaction) => Promise<T>): Promise<T>;
  orders(filter?: ListFilter): Promise<OrderRecord[]>;
  trades(filter?: ListFilter): Promise<TradeRecord[]>;
  refunds(filter?: ListFilter): Promise<RefundRecord[]>;
  /**
   * Trades the clock has made a change of due by `nowMs` (any app): waiting for payment past
   * their expiry, or UNKNOWN past the time their result becomes known.
   */
  dueTrades(nowMs: number, limit?: number): Promise<TradeRecord[]>;
  /**
   * Drops what requests created for one app (customers synced, orders, trades, refunds, cards,
   * applications) and restores its fixture customers; without an app key, for every app (and
   * the counters restart).
   */
  reset(appKey?: string): Promise<void>;
  readonly clockOffset: ClockOffsetStore;
  readonly callbackLog: SandboxCallbackLog;
  /** Where each app's `mop listen` session is held. */
  readonly listeners: ListenerRegistry;
  /** The faults set with the control API (docs/scenarios.md); a reset of the records leaves them to the scenarios' reset. */
  readonly faults: FaultStore;
  /** Resolves when the records can be read and written now; rejects with StoreUnavailableError otherwise. */
  health(): Promise<void>;
  /** Releases connections; the records stay where they are. */
  close(): Promise<void>;
}

/** @deprecated The former name of SandboxRecords (a store is a shop in the API's words). */
export type SandboxStore = SandboxRecords;
