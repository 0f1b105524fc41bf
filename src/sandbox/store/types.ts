// The sandbox's state behind one interface. The in-memory store (memory.ts) is the only
// implementation; a persistent one would implement the same interface. Records are plain
// objects; ids are bigint, amounts are fen (number), times are epoch ms (sandbox clock).
// Domain code mutates a record and then calls the matching save method.
//
// A record is the wire schema it is answered as (generated/signed.ts), as stored: int64 ids as
// bigint, date-times as epoch ms, plus what only the sandbox keeps. Nothing is restated: a field
// the spec renames or retypes changes the record with it.
import type { components } from "../../../generated/signed.js";

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
 * The sandbox's records (apps, merchants, stores, orders, trades, ...), read and written by the
 * domain modules through SandboxContext.records. Not "store": in the API a store is a shop
 * (`records.store(storeId)`).
 */
export interface SandboxRecords {
  app(appKey: string): AppRecord | undefined;
  apps(): readonly AppRecord[];
  apiKey(apiKey: string): ApiKeyRecord | undefined;
  merchant(id: bigint): MerchantRecord | undefined;
  merchants(): readonly MerchantRecord[];
  store(id: bigint): StoreRecord | undefined;
  stores(): readonly StoreRecord[];
  cardTemplate(id: bigint): CardTemplateRecord | undefined;
  cardTemplates(): readonly CardTemplateRecord[];

  customerByOpenUserId(appKey: string, openUserId: string): CustomerRecord | undefined;
  customerByAppUserId(appKey: string, appUserId: bigint): CustomerRecord | undefined;
  saveCustomer(customer: CustomerRecord): void;

  order(id: bigint): OrderRecord | undefined;
  /** Every order, for the dashboard. */
  orders(): readonly OrderRecord[];
  saveOrder(order: OrderRecord): void;

  trade(tradeNo: string): TradeRecord | undefined;
  tradeByOutTradeNo(appKey: string, outTradeNo: string): TradeRecord | undefined;
  trades(): readonly TradeRecord[];
  /** Saves a trade; the first save of a cashier trade also claims its (appKey, outTradeNo). */
  saveTrade(trade: TradeRecord, options?: { claimOutTradeNo?: boolean }): void;

  saveRefund(refund: RefundRecord): void;
  refunds(): readonly RefundRecord[];
  /** The app's refund made with this outRefundNo, if any (the refund's idempotency key). */
  refundByOutRefundNo(appKey: string, outRefundNo: string): RefundRecord | undefined;

  memberCard(id: bigint): MemberCardRecord | undefined;
  saveMemberCard(card: MemberCardRecord): void;

  application(id: bigint): CreditApplicationRecord | undefined;
  saveApplication(application: CreditApplicationRecord): void;

  /** The next value of a counter (1, 2, 3 …); counters restart on reset. */
  nextSequence(name: SequenceName): number;

  /** Drops everything that was created and reloads the fixtures. */
  reset(): void;
}

/** @deprecated The former name of SandboxRecords (a store is a shop in the API's words). */
export type SandboxStore = SandboxRecords;
