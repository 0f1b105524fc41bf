// Merchants, stores, card templates and member cards: the other eight signed operations, and
// the test hooks of a merchant reviewing a credit application (which send the member-card
// callbacks to the app's callback URL).
import type { CallbackSender, ControlHandlers, SignedHandlers } from "merchant-open-platform/server";
import { signedError } from "merchant-open-platform/server";
import { byId, page, time, timeOrNull, type App, type CreditApplication, type Merchant, type Platform, type Store } from "./platform.ts";

/** The list filter's scale (0 normal, 1 disabled, 2 cancelled) differs from the items' (0 cooperating, 1 terminated). */
const FILTER_STATUS = { 0: "normal", 1: "disabled", 2: "cancelled" } as const;
const itemStatus = (merchant: Merchant): 0 | 1 => (merchant.accountStatus === "cancelled" ? 1 : 0);
/** 13800138000 → 138****8000: the detail's phone is shown masked. */
const maskPhone = (phone: string) => `${phone.slice(0, 3)}${"*".repeat(Math.max(1, phone.length - 7))}${phone.slice(-4)}`;
const nameMatches = (candidate: string, name: string | undefined) => name === undefined || candidate.toLowerCase().includes(name.toLowerCase());

const storeItem = ({ id, merchantId, name, address, phone, latitude, longitude, status }: Store) => ({ id, merchantId, name, address, phone, latitude, longitude, status });

/** Great-circle distance in metres (haversine). */
function distanceMetres(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Whether the store is open at an instant, in its own time zone. */
function openAt(store: Store, ms: number): boolean {
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-US", { timeZone: store.timezone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const day = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].indexOf(parts.weekday ?? "");
  const at = `${parts.hour}:${parts.minute}`;
  return (store.weekly[day] ?? []).some((period) => period.open <= at && at < period.close);
}

export type CatalogOperations = Pick<SignedHandlers, "listMerchants" | "getMerchant" | "listStores" | "getStore" | "listNearbyStores" | "getStoreBusinessHours" | "listCardTemplates" | "purchaseMemberCard">;

export function catalogOperations(platform: Platform): CatalogOperations {
  /** The stores of one merchant (access checked), or of every authorised merchant that can be served. */
  function visibleStores(app: App, merchantId: bigint | undefined): Store[] {
    const merchants = merchantId === undefined ? platform.servableMerchants(app) : new Set([platform.requireMerchant(app, merchantId).id]);
    return [...platform.stores.values()].filter((store) => merchants.has(store.merchantId)).sort(byId);
  }

  function requireStore(app: App, storeId: bigint): Store {
    const store = platform.stores.get(storeId);
    if (!store) throw signedError("STORE_NOT_FOUND", `storeId ${storeId}: the store does not exist.`);
    platform.requireMerchant(app, store.merchantId, `The merchant of store ${storeId}, merchantId`);
    return store;
  }

  return {
    listMerchants: ({ appKey, query }) => {
      const app = platform.app(appKey);
      platform.requireMerchantModule(app);
      const wanted = query.status === undefined ? undefined : FILTER_STATUS[query.status];
      const matching = app.merchantIds
        .map((id) => platform.merchants.get(id))
        .filter((m): m is Merchant => m !== undefined && nameMatches(m.merchantName, query.name) && (wanted === undefined || m.accountStatus === wanted))
        .sort(byId);
      const list = page(matching, query.pageNo, query.pageSize).map((m) => ({ id: m.id, merchantName: m.merchantName, contactName: m.contactName, contactPhone: m.contactPhone, address: m.address, status: itemStatus(m), cooperateTime: time(m.cooperateTime) }));
      return { list, total: matching.length, page: query.pageNo, size: query.pageSize };
    },

    getMerchant: ({ appKey, path }) => {
      const app = platform.app(appKey);
      platform.requireMerchantModule(app);
      const { accountStatus: _status, cooperateTime: _since, contactPhone, ...merchant } = platform.requireMerchant(app, path.merchantId);
      const storeCount = [...platform.stores.values()].filter((store) => store.merchantId === merchant.id).length;
      return { ...merchant, contactPhone: maskPhone(contactPhone), storeCount };
    },

    listStores: ({ appKey, query }) => {
      const matching = visibleStores(platform.app(appKey), query.merchantId).filter((store) => nameMatches(store.name, query.name));
      return { list: page(matching, query.pageNo, query.pageSize).map(storeItem), total: matching.length, pageNo: query.pageNo, pageSize: query.pageSize };
    },

    getStore: ({ appKey, path }) => {
      const store = requireStore(platform.app(appKey), path.storeId);
      return { ...storeItem(store), province: store.province, city: store.city, district: store.district, businessHours: store.businessHours, description: store.description, createTime: time(store.createTime) };
    },

    listNearbyStores: ({ appKey, query }) => {
      const matching = visibleStores(platform.app(appKey), query.merchantId)
        .filter((store) => store.status === 0)
        .map((store) => ({ ...storeItem(store), distance: Math.round(distanceMetres(query.latitude, query.longitude, store.latitude, store.longitude)) }))
        .filter((store) => store.distance <= query.radius)
        .sort((a, b) => a.distance - b.distance || byId(a, b));
      return { list: page(matching, query.pageNo, query.pageSize), total: matching.length, pageNo: query.pageNo, pageSize: query.pageSize };
    },

    getStoreBusinessHours: ({ appKey, path }) => {
      const store = requireStore(platform.app(appKey), path.storeId);
      return {
        storeId: store.id,
        timezone: store.timezone,
        weekly: store.weekly.map((periods, index) => ({ dayOfWeek: (index + 1) as 1 | 2 | 3 | 4 | 5 | 6 | 7, periods: periods.map((period) => ({ ...period })) })),
        openNow: openAt(store, platform.now()),
      };
    },

    listCardTemplates: ({ appKey, query }) => {
      const app = platform.app(appKey);
      const merchants = query.merchantId === undefined ? platform.servableMerchants(app) : new Set([platform.requireMerchant(app, query.merchantId).id]);
      const matching = [...platform.templates.values()].filter((t) => merchants.has(t.merchantId)).sort(byId);
      const list = page(matching, query.pageNo, query.pageSize).map(({ merchantId: _m, purchaseMode: _p, tierIds: _t, benefits, ...template }) => ({ ...template, benefits: [...benefits] }));
      return { list, total: matching.length, pageNo: query.pageNo, pageSize: query.pageSize };
    },

    purchaseMemberCard: ({ appKey, body, refuse }) => {
      const app = platform.app(appKey);
      const merchantId = BigInt(body.merchantId);
      platform.requireMerchant(app, merchantId);
      const template = platform.templates.get(BigInt(body.templateId));
      if (!template || template.merchantId !== merchantId) return refuse("CARD_TEMPLATE_NOT_FOUND", `templateId ${body.templateId}: no such card template of merchant ${merchantId}.`);
      if (body.tierId !== undefined) {
        if (template.cardType !== 0) return refuse("CARD_TIER_NOT_APPLICABLE", `tierId: template ${template.id} has cardType ${template.cardType}; a tierId is only for a stored-value card (0).`);
        if (!template.tierIds.includes(BigInt(body.tierId))) return refuse("CARD_TIER_NOT_FOUND", `tierId ${body.tierId} is not a top-up tier of template ${template.id}.`);
      }
      const appUserId = BigInt(body.appUserId);
      platform.requireCustomer(app, appUserId, "appUserId");
      if (template.purchaseMode === "direct") return { resultType: 1 as const, id: platform.nextId("memberCard", 900_001n) };
      const application: CreditApplication = { id: platform.nextId("application", 910_001n), appKey, merchantId, templateId: template.id, appUserId, status: "PENDING", createTime: platform.now(), reviewTime: null, reason: null, memberCardId: null };
      platform.applications.set(application.id, application);
      return { resultType: 2 as const, id: application.id };
    },
  };
}

const applicationView = ({ appKey: _appKey, createTime, reviewTime, ...application }: CreditApplication) => ({ ...application, createTime: time(createTime), reviewTime: timeOrNull(reviewTime) });

/** The test hooks of a merchant reviewing a credit application: the card opens (or not), and the app hears of it. */
export function reviewHooks(platform: Platform, callbacks: CallbackSender): Pick<ControlHandlers, "approveCreditApplication" | "rejectCreditApplication"> {
  function pending(applicationId: bigint): CreditApplication {
    const application = platform.applications.get(applicationId);
    if (!application) throw signedError("CREDIT_APPLICATION_NOT_FOUND", `applicationId ${applicationId}: no such credit application.`);
    if (application.status !== "PENDING") throw signedError("CREDIT_APPLICATION_NOT_PENDING", `applicationId ${applicationId} was already ${application.status.toLowerCase()}.`);
    return application;
  }
  const common = (application: CreditApplication, now: number) => ({ applicationId: application.id, merchantId: application.merchantId, templateId: application.templateId, appUserId: application.appUserId, reviewTime: time(now) });
  return {
    approveCreditApplication: async ({ path }) => {
      const application = pending(path.applicationId);
      const now = platform.now();
      const memberCardId = platform.nextId("memberCard", 900_001n);
      const event = callbacks.prepare({ type: "member_card.application.approved", appKey: application.appKey, targetUrl: platform.app(application.appKey).callbackUrl, createTime: now, data: { ...common(application, now), memberCardId } });
      Object.assign(application, { status: "APPROVED", reviewTime: now, memberCardId });
      return { application: applicationView(application), eventId: (await callbacks.enqueue(event)).eventId };
    },
    rejectCreditApplication: async ({ path, body }) => {
      const application = pending(path.applicationId);
      const now = platform.now();
      const event = callbacks.prepare({ type: "member_card.application.rejected", appKey: application.appKey, targetUrl: platform.app(application.appKey).callbackUrl, createTime: now, data: { ...common(application, now), reason: body.reason } });
      Object.assign(application, { status: "REJECTED", reviewTime: now, reason: body.reason });
      return { application: applicationView(application), eventId: (await callbacks.enqueue(event)).eventId };
    },
  };
}
