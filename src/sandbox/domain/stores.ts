// listStores, getStore, listNearbyStores and getStoreBusinessHours.
import { formatPlatformTime } from "../clock.js";
import type { SandboxContext } from "../context.js";
import { signedError } from "../errors.js";
import type { AppRecord, BusinessPeriod, StoreRecord } from "../store/types.js";
import { nameMatches, page, requireMerchant, servableMerchantIds } from "./access.js";
import { roundedIdHint } from "./id-range.js";

function storeItem(store: StoreRecord) {
  return {
    id: store.id,
    merchantId: store.merchantId,
    name: store.name,
    address: store.address,
    phone: store.phone,
    latitude: store.latitude,
    longitude: store.longitude,
    status: store.status,
  };
}

/** Stores of one merchant (checked), or of every authorised online merchant. */
function visibleStores(ctx: SandboxContext, app: AppRecord, merchantId: bigint | undefined): StoreRecord[] {
  const merchants = merchantId === undefined ? servableMerchantIds(ctx, app) : new Set([requireMerchant(ctx, app, merchantId).id]);
  return ctx.records
    .stores()
    .filter((store) => merchants.has(store.merchantId))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

export interface StoreListQuery {
  pageNo: number;
  pageSize: number;
  merchantId?: bigint;
  name?: string;
}

export function listStores(ctx: SandboxContext, app: AppRecord, query: StoreListQuery) {
  const matching = visibleStores(ctx, app, query.merchantId).filter((store) => nameMatches(store.name, query.name));
  return { list: page(matching, query.pageNo, query.pageSize).map(storeItem), total: matching.length, pageNo: query.pageNo, pageSize: query.pageSize };
}

/** The store, if it exists and its merchant passes the access precedence. */
function requireStore(ctx: SandboxContext, app: AppRecord, storeId: bigint): StoreRecord {
  const store = ctx.records.store(storeId);
  if (!store) {
    const hint = roundedIdHint(storeId, (id) => ctx.records.store(id) !== undefined);
    throw signedError("STORE_NOT_FOUND", `storeId ${storeId}: the store does not exist.${hint}`);
  }
  requireMerchant(ctx, app, store.merchantId, `The merchant of store ${storeId}, merchantId`);
  return store;
}

export function getStore(ctx: SandboxContext, app: AppRecord, storeId: bigint) {
  const store = requireStore(ctx, app, storeId);
  return {
    ...storeItem(store),
    province: store.province,
    city: store.city,
    district: store.district,
    businessHours: store.businessHours,
    description: store.description,
    createTime: formatPlatformTime(store.createTime),
  };
}

const EARTH_RADIUS_M = 6_371_008.8;

/** Great-circle distance in metres (haversine). */
export function distanceMetres(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

export interface NearbyQuery {
  latitude: number;
  longitude: number;
  radius: number;
  merchantId?: bigint;
  pageNo: number;
  pageSize: number;
}

export function listNearbyStores(ctx: SandboxContext, app: AppRecord, query: NearbyQuery) {
  const matching = visibleStores(ctx, app, query.merchantId)
    .filter((store) => store.status === 0)
    .map((store) => ({ store, distance: Math.round(distanceMetres(query.latitude, query.longitude, store.latitude, store.longitude)) }))
    .filter((entry) => entry.distance <= query.radius)
    .sort((a, b) => a.distance - b.distance || (a.store.id < b.store.id ? -1 : 1));
  return {
    list: page(matching, query.pageNo, query.pageSize).map((entry) => ({ ...storeItem(entry.store), distance: entry.distance })),
    total: matching.length,
    pageNo: query.pageNo,
    pageSize: query.pageSize,
  };
}

const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Weekday index (0 Monday) and HH:mm of an instant in a time zone. */
export function localWeekTime(ms: number, timeZone: string): { dayIndex: number; time: string } {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    formatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  return { dayIndex: WEEKDAYS.indexOf(parts.weekday ?? ""), time: `${parts.hour ?? "00"}:${parts.minute ?? "00"}` };
}

export function isOpenAt(weekly: readonly BusinessPeriod[][], ms: number, timeZone: string): boolean {
  const { dayIndex, time } = localWeekTime(ms, timeZone);
  return (weekly[dayIndex] ?? []).some((period) => period.open <= time && time < period.close);
}

export function getStoreBusinessHours(ctx: SandboxContext, app: AppRecord, storeId: bigint) {
  const store = requireStore(ctx, app, storeId);
  return {
    storeId: store.id,
    timezone: store.timezone,
    weekly: store.weekly.map((periods, index) => ({ dayOfWeek: index + 1, periods: periods.map((period) => ({ ...period })) })),
    openNow: isOpenAt(store.weekly, ctx.clock.now(), store.timezone),
  };
}
