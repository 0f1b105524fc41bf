// The sandbox's state behind one interface. The in-memory store (memory.ts) is the only
// implementation; a persistent one would implement the same interface. Records are plain
// objects; ids are bigint, amounts are fen (number), times are epoch ms (sandbox clock).
// Domain code mutates a record and then calls the matching save method.

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

export interface MerchantRecord {
  id: bigint;
  merchantName: string;
  merchantType: number;
  contactName: string;
  contactPhone: string;
  province: string;
  city: string;
  district: string;
  address: string;
  businessHours: string;
  logoUrl: string;
  description: string;
  accountStatus: MerchantAccountStatus;
  cooperateTime: number;
}

export interface BusinessPeriod {
  open: string;
  close: string;
}

export interface StoreRecord {
  id: bigint;
  merchantId: bigint;
  name: string;
  address: string;
  phone: string;
  latitude: number;
  longitude: number;
  status: 0 | 1;
  province: string;
  city: string;
  district: string;
  description: string;
  createTime: number;
  timezone: string;
  businessHours: string;
  /** Index 0 is Monday (dayOfWeek 1) … index 6 Sunday. */
  weekly: BusinessPeriod[][];
}

export interface CardTemplateRecord {
  id: bigint;
  merchantId: bigint;
  templateName: string;
  cardType: 0 | 1 | 2;
  price: number;
  originalPrice: number;
  validDays: number;
  description: string;
  benefits: string[];
  /** Fixture-only: direct opens the card at once, credit submits an application for review. */
  purchaseMode: "direct" | "credit";
  /** Fixture-only: top-up tiers of a stored-value card. */
  tiers: { id: bigint; amount: number }[];
}

export interface CustomerRecord {
  appKey: string;
  appUserId: bigint;
  openUserId: string;
  nickname: string | null;
  mobile: string | null;
  avatarUrl: string | null;
  createTime: number;
  updateTime: number;
}

export type OrderStatus = 0 | 1 | 2 | 3 | 4 | 5;

export interface OrderItemRecord {
  itemType: number;
  itemId: bigint;
  itemName: string;
  itemCoverUrl: string | null;
  specValues: string | null;
  price: number;
  quantity: number;
}

export interface OrderStatusChange {
  fromStatus: OrderStatus | null;
  toStatus: OrderStatus;
  changeTime: number;
  reason: string;
}

export interface OrderRecord {
  id: bigint;
  appKey: string;
  merchantId: bigint;
  storeId: bigint | null;
  userId: bigint;
  orderType: number;
  couponId: bigint | null;
  voucherIds: string | null;
  remark: string | null;
  items: OrderItemRecord[];
  totalAmount: number;
  status: OrderStatus;
  createTime: number;
  payTime: number | null;
  completeTime: number | null;
  history: OrderStatusChange[];
  /** Trades opened by payOrder, oldest first. */
  tradeNos: string[];
  /** The trade that paid the order. */
  paidTradeNo: string | null;
}

export type TradeStatus = "WAIT_BUYER_PAY" | "SUCCESS" | "REFUND" | "CLOSED";

export interface TradeRecord {
  tradeNo: string;
  appKey: string;
  merchantId: bigint;
  outTradeNo: string;
  totalAmount: number;
  subject: string;
  body: string | null;
  notifyUrl: string;
  returnUrl: string | null;
  expireMinutes: number;
  attach: string | null;
  status: TradeStatus;
  createTime: number;
  expireTime: number;
  payTime: number | null;
  closeTime: number | null;
  closeReason: string | null;
  refundTime: number | null;
  /** Set for trades opened by payOrder. */
  orderId: bigint | null;
}

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
