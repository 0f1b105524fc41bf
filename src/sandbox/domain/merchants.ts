// listMerchants and getMerchant, and the key-based listAccountMerchants.
import { formatPlatformTime, formatUtcTime } from "../clock.js";
import type { SandboxContext } from "../context.js";
import type { AppRecord, MerchantAccountStatus, MerchantRecord } from "../store/types.js";
import { nameMatches, page, requireMerchant, requireMerchantModule } from "./access.js";

/** The list filter's scale: 0 normal, 1 disabled, 2 cancelled. */
const FILTER_STATUS: Record<number, MerchantAccountStatus> = { 0: "normal", 1: "disabled", 2: "cancelled" };

/** The items' scale: 0 cooperating (normal and disabled accounts), 1 terminated (cancelled). */
function itemStatus(merchant: MerchantRecord): 0 | 1 {
  return merchant.accountStatus === "cancelled" ? 1 : 0;
}

/** Keeps the first 3 and last 4 digits: 13800138000 → 138****8000. */
export function maskPhone(phone: string): string {
  if (phone.length >= 9) return `${phone.slice(0, 3)}${"*".repeat(phone.length - 7)}${phone.slice(-4)}`;
  return `${"*".repeat(Math.max(1, phone.length - 2))}${phone.slice(-2)}`;
}

export interface MerchantListQuery {
  pageNo: number;
  pageSize: number;
  name?: string;
  status?: number;
}

export function listMerchants(ctx: SandboxContext, app: AppRecord, query: MerchantListQuery) {
  requireMerchantModule(app);
  const wanted = query.status === undefined ? undefined : FILTER_STATUS[query.status];
  const matching = app.merchantIds
    .map((id) => ctx.records.merchant(id))
    .filter((merchant): merchant is MerchantRecord => merchant !== undefined)
    .filter((merchant) => nameMatches(merchant.merchantName, query.name))
    .filter((merchant) => wanted === undefined || merchant.accountStatus === wanted)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    list: page(matching, query.pageNo, query.pageSize).map((merchant) => ({
      id: merchant.id,
      merchantName: merchant.merchantName,
      contactName: merchant.contactName,
      contactPhone: merchant.contactPhone,
      address: merchant.address,
      status: itemStatus(merchant),
      cooperateTime: formatPlatformTime(merchant.cooperateTime),
    })),
    total: matching.length,
    page: query.pageNo,
    size: query.pageSize,
  };
}

export function getMerchant(ctx: SandboxContext, app: AppRecord, merchantId: bigint) {
  requireMerchantModule(app);
  const merchant = requireMerchant(ctx, app, merchantId);
  return {
    id: merchant.id,
    merchantName: merchant.merchantName,
    merchantType: merchant.merchantType,
    contactName: merchant.contactName,
    contactPhone: maskPhone(merchant.contactPhone),
    province: merchant.province,
    city: merchant.city,
    district: merchant.district,
    address: merchant.address,
    businessHours: merchant.businessHours,
    logoUrl: merchant.logoUrl,
    description: merchant.description,
    storeCount: ctx.records.stores().filter((store) => store.merchantId === merchant.id).length,
  };
}

export interface AccountMerchantQuery {
  page: number;
  limit: number;
  status?: "active" | "inactive" | "pending";
}

/** The key-based list: the account's merchants, ids as strings, statuses as words. */
export function listAccountMerchants(ctx: SandboxContext, apiKey: string, query: AccountMerchantQuery) {
  const account = ctx.records.apiKey(apiKey);
  const matching = (account?.merchants ?? [])
    .filter((entry) => query.status === undefined || entry.status === query.status)
    .sort((a, b) => (a.merchantId < b.merchantId ? -1 : 1));
  return {
    merchants: page(matching, query.page, query.limit).map((entry) => ({
      id: entry.merchantId.toString(),
      name: ctx.records.merchant(entry.merchantId)?.merchantName ?? "",
      status: entry.status,
      created_at: formatUtcTime(entry.createdAt),
      updated_at: formatUtcTime(entry.updatedAt),
    })),
    pagination: { page: query.page, limit: query.limit, total: matching.length, pages: Math.ceil(matching.length / query.limit) },
  };
}
