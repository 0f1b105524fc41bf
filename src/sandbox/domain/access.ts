// Which merchants an app may touch, with one precedence for every operation (docs/sandbox.md):
//   100007 no merchant-module permission (merchant list and detail only)
//   200001 the merchant does not exist
//   100008 the merchant exists but is not authorised for the app
//   200002 the merchant is offline (account disabled) or cancelled
import type { SandboxContext } from "../context.js";
import { signedError } from "../errors.js";
import type { AppRecord, MerchantRecord } from "../store/types.js";
import { roundedIdHint } from "./id-range.js";

export const MERCHANT_MODULE = "merchant-module";

export function requireMerchantModule(app: AppRecord): void {
  if (!app.permissions.includes(MERCHANT_MODULE)) {
    throw signedError("MERCHANT_MODULE_FORBIDDEN", `The app ${app.appKey} has no permission on the merchant module (${MERCHANT_MODULE}).`);
  }
}

export function isAuthorised(app: AppRecord, merchantId: bigint): boolean {
  return app.merchantIds.includes(merchantId);
}

export function isServable(merchant: MerchantRecord): boolean {
  return merchant.accountStatus === "normal";
}

/** The merchant, if it exists, is authorised and online; otherwise the error of the precedence above. */
export function requireMerchant(ctx: SandboxContext, app: AppRecord, merchantId: bigint, field = "merchantId"): MerchantRecord {
  const merchant = ctx.records.merchant(merchantId);
  if (!merchant) {
    const hint = roundedIdHint(merchantId, (id) => ctx.records.merchant(id) !== undefined);
    throw signedError("MERCHANT_NOT_FOUND", `${field} ${merchantId}: the merchant does not exist.${hint}`);
  }
  if (!isAuthorised(app, merchantId)) {
    throw signedError("MERCHANT_DATA_FORBIDDEN", `${field} ${merchantId}: the merchant is not authorised for the app ${app.appKey}.`);
  }
  if (!isServable(merchant)) {
    const why = merchant.accountStatus === "disabled" ? "offline (its account is disabled)" : "cancelled (cooperation terminated)";
    throw signedError("MERCHANT_OFFLINE", `${field} ${merchantId}: the merchant is ${why} and cannot be served.`);
  }
  return merchant;
}

/** The authorised merchants a list without a merchantId covers: the online ones. */
export function servableMerchantIds(ctx: SandboxContext, app: AppRecord): Set<bigint> {
  const ids = new Set<bigint>();
  for (const merchantId of app.merchantIds) {
    const merchant = ctx.records.merchant(merchantId);
    if (merchant && isServable(merchant)) ids.add(merchantId);
  }
  return ids;
}

/** One page of a list, 1-based. */
export function page<T>(items: readonly T[], pageNo: number, pageSize: number): T[] {
  return items.slice((pageNo - 1) * pageSize, pageNo * pageSize);
}

/** Case-insensitive substring match; no filter when name is undefined. */
export function nameMatches(candidate: string, name: string | undefined): boolean {
  return name === undefined || candidate.toLowerCase().includes(name.toLowerCase());
}
