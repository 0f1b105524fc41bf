// syncCustomer: the app's own user (openUserId) → the app-user mapping id (appUserId), per app,
// idempotent. createOrder takes that id as userId and purchaseMemberCard as appUserId.
import type { SandboxContext } from "../context.js";
import { signedError } from "../errors.js";
import type { AppRecord, CustomerRecord, RecordReads, RecordsTransaction } from "../store/types.js";
import { roundedIdHintOf } from "./id-range.js";

const APP_USER_ID_BASE = 880_000_000_000n;

export interface SyncCustomerInput {
  openUserId: string;
  nickname?: string;
  mobile?: string;
  avatarUrl?: string;
}

export function syncCustomer(ctx: SandboxContext, app: AppRecord, input: SyncCustomerInput) {
  return ctx.records.transaction(app.appKey, (tx) => syncInTransaction(ctx, tx, app, input));
}

async function syncInTransaction(ctx: SandboxContext, tx: RecordsTransaction, app: AppRecord, input: SyncCustomerInput) {
  const now = ctx.clock.now();
  const existing = await tx.customerByOpenUserId(app.appKey, input.openUserId);
  if (existing) {
    if (input.nickname !== undefined) existing.nickname = input.nickname;
    if (input.mobile !== undefined) existing.mobile = input.mobile;
    if (input.avatarUrl !== undefined) existing.avatarUrl = input.avatarUrl;
    existing.updateTime = now;
    await tx.updateCustomer(existing);
    return { appUserId: existing.appUserId, openUserId: existing.openUserId, created: false };
  }
  let appUserId: bigint;
  do appUserId = APP_USER_ID_BASE + BigInt(await tx.nextSequence("appUser"));
  while (await tx.customerByAppUserId(app.appKey, appUserId));
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
  await tx.insertCustomer(customer);
  return { appUserId, openUserId: customer.openUserId, created: true };
}

/** The customer behind an app-user mapping id of this app, or 200005; read through `reads` (a transaction's, or the records'). */
export async function requireCustomer(_ctx: SandboxContext, reads: RecordReads, app: AppRecord, appUserId: bigint, field: string): Promise<CustomerRecord> {
  const customer = await reads.customerByAppUserId(app.appKey, appUserId);
  if (!customer) {
    const hint = await roundedIdHintOf(appUserId, async (id) => (await reads.customerByAppUserId(app.appKey, id)) !== undefined);
    throw signedError("CUSTOMER_NOT_FOUND", `${field} ${appUserId} is not an app-user mapping id of this app; obtain it from customer sync (POST /customers/sync).${hint}`);
  }
  return customer;
}
