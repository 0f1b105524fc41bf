// The platform's data and its access rules, in memory: apps, merchants, stores, card templates,
// and what the apps create (customers, orders, trades, refunds, cards, applications). A real
// server keeps these in its database; the handlers (orders.ts, catalog.ts) would not change.
//
// Ids count up, one sequence per kind; app users and orders start above 2^53, so a JavaScript
// number cannot hold most of them: they are bigint here, and the kit writes them exactly.
import { formatUtcSeconds, signedError, type ServerApp } from "merchant-open-platform/server";

export const TWO_POW_53 = 2n ** 53n;

export interface App extends ServerApp {
  appKey: string;
  merchantIds: bigint[];
  permissions: string[];
  /** Where member-card callbacks go (payments go to each trade's notifyUrl). */
  callbackUrl: string | null;
}

export interface Merchant {
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
  accountStatus: "normal" | "disabled" | "cancelled";
  cooperateTime: number;
}

export interface Store {
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
  businessHours: string;
  description: string;
  createTime: number;
  timezone: string;
  /** Monday first: the opening periods of each day ("HH:mm"). */
  weekly: Array<Array<{ open: string; close: string }>>;
}

export interface CardTemplate {
  id: bigint;
  merchantId: bigint;
  templateName: string;
  cardType: 0 | 1 | 2;
  price: number;
  originalPrice: number;
  validDays: number;
  description: string;
  benefits: string[];
  /** direct: the card opens at once (resultType 1); credit: an application the merchant reviews (2). */
  purchaseMode: "direct" | "credit";
  tierIds: bigint[];
}

export type OrderStatus = 0 | 1 | 2 | 3 | 4 | 5;

export interface Order {
  id: bigint;
  appKey: string;
  merchantId: bigint;
  storeId: bigint | null;
  userId: bigint;
  orderType: 1 | 2 | 3 | 4;
  remark: string | null;
  items: Array<{ itemType: 1 | 2 | 3 | 4; itemId: bigint; itemName: string; price: number; quantity: number }>;
  totalAmount: number;
  status: OrderStatus;
  createTime: number;
  payTime: number | null;
  completeTime: number | null;
  history: Array<{ fromStatus: OrderStatus | null; toStatus: OrderStatus; changeTime: number; reason: string }>;
  tradeNos: string[];
  paidTradeNo: string | null;
}

export interface Trade {
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
  status: "WAIT_BUYER_PAY" | "SUCCESS" | "REFUND" | "CLOSED";
  createTime: number;
  expireTime: number;
  payTime: number | null;
  closeReason: string | null;
  orderId: bigint | null;
}

export interface Refund {
  refundNo: string;
  appKey: string;
  orderId: bigint;
  merchantId: bigint;
  refundAmount: number;
  reason: string;
  outRefundNo: string | null;
  createTime: number;
}

export interface CreditApplication {
  id: bigint;
  appKey: string;
  merchantId: bigint;
  templateId: bigint;
  appUserId: bigint;
  status: "PENDING" | "APPROVED" | "REJECTED";
  createTime: number;
  reviewTime: number | null;
  reason: string | null;
  memberCardId: bigint | null;
}

const week = (open: string, close: string) => Array.from({ length: 7 }, () => [{ open, close }]);

/** The platform's state: its fixtures, and what the apps made. */
export class Platform {
  readonly apps = new Map<string, App>();
  readonly merchants = new Map<bigint, Merchant>();
  readonly stores = new Map<bigint, Store>();
  readonly templates = new Map<bigint, CardTemplate>();
  /** `${appKey}:${openUserId}` → appUserId, and appUserId → appKey. */
  readonly customers = new Map<string, bigint>();
  readonly customerApps = new Map<bigint, string>();
  readonly orders = new Map<bigint, Order>();
  readonly trades = new Map<string, Trade>();
  /** `${appKey}:${outTradeNo}` → tradeNo: outTradeNo is unique per app (the contract's reading of "globally unique"). */
  readonly outTradeNos = new Map<string, string>();
  /** Refunds by refundNo, and `${appKey}:${outRefundNo}` → refundNo (the refund's idempotency key, per app). */
  readonly refunds = new Map<string, Refund>();
  readonly outRefundNos = new Map<string, string>();
  readonly applications = new Map<bigint, CreditApplication>();
  private readonly sequences = new Map<string, bigint>();
  /** The platform's clock, epoch ms. */
  readonly now: () => number;

  // Plain fields, no parameter properties: the file runs with Node's type stripping as it is.
  constructor(now: () => number, app: { appKey: string; appSecret: string; callbackUrl?: string | null }) {
    this.now = now;
    this.apps.set(app.appKey, { appKey: app.appKey, appSecrets: [app.appSecret], merchantIds: [10001n, 10002n], permissions: ["merchant-module"], callbackUrl: app.callbackUrl ?? null });
    const merchant = (id: bigint, merchantName: string, accountStatus: Merchant["accountStatus"]): Merchant => ({
      id, merchantName, merchantType: 1, contactName: "Li Lei", contactPhone: "13800138000", province: "Zhejiang", city: "Hangzhou", district: "Xihu",
      address: `${id} Lake Road`, businessHours: "09:00-21:00", logoUrl: "https://static.example.com/logo.png", description: merchantName, accountStatus, cooperateTime: Date.UTC(2024, 0, 1),
    });
    // 10003 exists but is not authorised for the app: mop check --foreign-merchant-id 10003.
    for (const m of [merchant(10001n, "Tea House", "normal"), merchant(10002n, "Noodle Bar", "disabled"), merchant(10003n, "Book Shop", "normal")]) this.merchants.set(m.id, m);
    const store = (id: bigint, merchantId: bigint, name: string, status: 0 | 1, latitude: number, longitude: number): Store => ({
      id, merchantId, name, address: `${name} Square`, phone: "0571-88880001", latitude, longitude, status, province: "Zhejiang", city: "Hangzhou", district: "Xihu",
      businessHours: "09:00-21:00", description: name, createTime: Date.UTC(2024, 0, 2), timezone: "Asia/Shanghai", weekly: week("09:00", "21:00"),
    });
    for (const s of [store(20001n, 10001n, "Tea House West Lake", 0, 30.25, 120.15), store(20002n, 10001n, "Tea House Station", 1, 30.29, 120.21), store(20003n, 10003n, "Book Shop Canal", 0, 30.3, 120.2)]) this.stores.set(s.id, s);
    const template = (id: bigint, cardType: 0 | 1 | 2, purchaseMode: "direct" | "credit", tierIds: bigint[] = []): CardTemplate => ({
      id, merchantId: 10001n, templateName: `Card ${id}`, cardType, price: 9900, originalPrice: 12900, validDays: 365, description: "Member card", benefits: ["10% off"], purchaseMode, tierIds,
    });
    for (const t of [template(30001n, 0, "direct", [31001n, 31002n]), template(30002n, 1, "direct"), template(30003n, 2, "credit")]) this.templates.set(t.id, t);
  }

  /** The next id of a kind, counting up from `first`. */
  nextId(kind: string, first: bigint): bigint {
    const id = this.sequences.get(kind) ?? first;
    this.sequences.set(kind, id + 1n);
    return id;
  }

  /** A 19-digit number for tradeNo and refundNo (digits, within int64). */
  nextNumber(kind: "trade" | "refund"): string {
    return String(this.nextId(kind, kind === "trade" ? 1_000_000_000_000_000_001n : 2_000_000_000_000_000_001n));
  }

  app(appKey: string): App {
    const app = this.apps.get(appKey);
    // The signature check found the app a moment ago.
    if (!app) throw signedError("APP_KEY_UNKNOWN", `X-App-Key ${appKey} is not a known application.`);
    return app;
  }

  requireMerchantModule(app: App): void {
    if (!app.permissions.includes("merchant-module")) throw signedError("MERCHANT_MODULE_FORBIDDEN", `The app ${app.appKey} has no permission on the merchant module.`);
  }

  /** The contract's precedence: 200001 not found, then 100008 not authorised, then 200002 offline. */
  requireMerchant(app: App, merchantId: bigint, field = "merchantId"): Merchant {
    const merchant = this.merchants.get(merchantId);
    if (!merchant) throw signedError("MERCHANT_NOT_FOUND", `${field} ${merchantId}: the merchant does not exist.`);
    if (!app.merchantIds.includes(merchantId)) throw signedError("MERCHANT_DATA_FORBIDDEN", `${field} ${merchantId}: the merchant is not authorised for the app.`);
    if (merchant.accountStatus !== "normal") throw signedError("MERCHANT_OFFLINE", `${field} ${merchantId}: the merchant is ${merchant.accountStatus} and cannot be served.`);
    return merchant;
  }

  /** Merchants a list without merchantId covers: every authorised one that can be served. */
  servableMerchants(app: App): Set<bigint> {
    return new Set(app.merchantIds.filter((id) => this.merchants.get(id)?.accountStatus === "normal"));
  }

  requireCustomer(app: App, appUserId: bigint, field: string): void {
    if (this.customerApps.get(appUserId) !== app.appKey) throw signedError("CUSTOMER_NOT_FOUND", `${field} ${appUserId} is not an app-user mapping id of this app; obtain it from customer sync.`);
  }

  /** A trade past its expiry is closed when it is next read. */
  refresh(trade: Trade): Trade {
    if (trade.status === "WAIT_BUYER_PAY" && this.now() >= trade.expireTime) {
      trade.status = "CLOSED";
      trade.closeReason = `expired after ${trade.expireMinutes} minutes`;
    }
    return trade;
  }
}

/** One page of a list, 1-based. */
export function page<T>(items: readonly T[], pageNo: number, pageSize: number): T[] {
  return items.slice((pageNo - 1) * pageSize, pageNo * pageSize);
}

export const byId = <T extends { id: bigint }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
export const time = (ms: number) => formatUtcSeconds(ms);
export const timeOrNull = (ms: number | null) => (ms === null ? null : formatUtcSeconds(ms));
