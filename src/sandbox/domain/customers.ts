// syncCustomer: the app's own user (openUserId) → the app-user mapping id (appUserId), per app,
// idempotent. createOrder takes that id as userId and purchaseMemberCard as appUserId.
import type { SandboxContext } from "../context.js";
import { signedError } from "../errors.js";
import type { AppRecord, CustomerRecord } from "../store/types.js";
import { roundedIdHint } from "./id-range.js";

const APP_USER_ID_BASE = 880_000_000_000n;

export interface SyncCustomerInput {
  openUserId: string;
  nickname?: string;
  mobile?: string;
  avatarUrl?: string;
}

export function syncCustomer(ctx: SandboxContext, app: AppRecord, input: SyncCustomerInput) {
  const now = ctx.clock.now();
  const existing = ctx.records.customerByOpenUserId(app.appKey, input.openUserId);
  if (existing) {
    if (input.nickname !== undefined) existing.nickname = input.nickname;
    if (input.mobile !== undefined) existing.mobile = input.mobile;
    if (input.avatarUrl !== undefined) existing.avatarUrl = input.avatarUrl;
    existing.updateTime = now;
    ctx.records.saveCustomer(existing);
    return { appUserId: existing.appUserId, openUserId: existing.openUserId, created: false };
  }
  let appUserId: bigint;
  do appUserId = APP_USER_ID_BASE + BigInt(ctx.records.nextSequence("appUser"));
  while (ctx.records.customerByAppUserId(app.appKey, appUserId));
  const customer: CustomerRecord = {
    appKey: app.appKey,
    appUserId,
    openUserId: input.openUserId,
    nickname: input.nickname ?? null,
    mobile: input.mobile ?? null,
    avatarUrl: input.avatarUrl ?? null,
    createTime: now,
    updateTime: now,
  };
  ctx.records.saveCustomer(customer);
  return { appUserId, openUserId: customer.openUserId, created: true };
}

/** The customer behind an app-user mapping id of this app, or 200005. */
export function requireCustomer(ctx: SandboxContext, app: AppRecord, appUserId: bigint, field: string): CustomerRecord {
  const customer = ctx.records.customerByAppUserId(app.appKey, appUserId);
  if (!customer) {
    const hint = roundedIdHint(appUserId, (id) => ctx.records.customerByAppUserId(app.appKey, id) !== undefined);
    throw signedError("CUSTOMER_NOT_FOUND", `${field} ${appUserId} is not an app-user mapping id of this app; obtain it from customer sync (POST /customers/sync).${hint}`);
  }
  return customer;
}
