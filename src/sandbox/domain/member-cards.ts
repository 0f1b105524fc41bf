// Card templates and member-card purchases. A "direct" template opens the card at once
// (resultType 1); a "credit" template submits an application (resultType 2) that the merchant
// approves or rejects through the control API, which sends the matching callback to the app's
// callbackUrl.
import { formatPlatformTime } from "../clock.js";
import type { SandboxContext } from "../context.js";
import { signedError } from "../errors.js";
import type { AppRecord, CardTemplateRecord, CreditApplicationRecord, MemberCardRecord, RecordsTransaction } from "../store/types.js";
import type { PreparedCallback } from "../callbacks/dispatcher.js";
import { page, requireMerchant, servableMerchantIds } from "./access.js";
import { requireCustomer } from "./customers.js";
import { roundedIdHint, roundedIdHintOf } from "./id-range.js";

const MEMBER_CARD_ID_BASE = 900_000_000_100n;
const APPLICATION_ID_BASE = 910_000_000_200n;

export function listCardTemplates(ctx: SandboxContext, app: AppRecord, query: { merchantId?: bigint; pageNo: number; pageSize: number }) {
  const merchants = query.merchantId === undefined ? servableMerchantIds(ctx, app) : new Set([requireMerchant(ctx, app, query.merchantId).id]);
  const matching = ctx.records
    .cardTemplates()
    .filter((template) => merchants.has(template.merchantId))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    list: page(matching, query.pageNo, query.pageSize).map((template) => ({
      id: template.id,
      templateName: template.templateName,
      cardType: template.cardType,
      price: template.price,
      originalPrice: template.originalPrice,
      validDays: template.validDays,
      description: template.description,
      benefits: [...template.benefits],
    })),
    total: matching.length,
    pageNo: query.pageNo,
    pageSize: query.pageSize,
  };
}

export interface PurchaseInput {
  merchantId: bigint;
  templateId: bigint;
  appUserId: bigint;
  tierId?: bigint;
}

function requireTemplate(ctx: SandboxContext, input: PurchaseInput): CardTemplateRecord {
  const template = ctx.records.cardTemplate(input.templateId);
  if (!template || template.merchantId !== input.merchantId) {
    const hint = roundedIdHint(input.templateId, (id) => ctx.records.cardTemplate(id)?.merchantId === input.merchantId);
    throw signedError("CARD_TEMPLATE_NOT_FOUND", `templateId ${input.templateId}: no such card template of merchant ${input.merchantId}.${hint}`);
  }
  if (input.tierId !== undefined) {
    if (template.cardType !== 0) {
      throw signedError("CARD_TIER_NOT_APPLICABLE", `tierId: template ${template.id} has cardType ${template.cardType}; a tierId may be sent only for a stored-value card template (cardType 0).`);
    }
    if (!template.tiers.some((tier) => tier.id === input.tierId)) {
      throw signedError("CARD_TIER_NOT_FOUND", `tierId ${input.tierId} is not a top-up tier of template ${template.id}.`);
    }
  }
  return template;
}

async function openCard(tx: RecordsTransaction, app: AppRecord, source: Omit<MemberCardRecord, "id" | "appKey" | "createTime">, now: number): Promise<MemberCardRecord> {
  const card: MemberCardRecord = { id: MEMBER_CARD_ID_BASE + BigInt(await tx.nextSequence("memberCard")), appKey: app.appKey, createTime: now, ...source };
  await tx.insertMemberCard(card);
  return card;
}

export async function purchaseMemberCard(ctx: SandboxContext, app: AppRecord, input: PurchaseInput) {
  requireMerchant(ctx, app, input.merchantId);
  const template = requireTemplate(ctx, input);
  return ctx.records.transaction(app.appKey, async (tx) => {
    await requireCustomer(ctx, tx, app, input.appUserId, "appUserId");
    return purchaseInTransaction(ctx, tx, app, template, input);
  });
}

async function purchaseInTransaction(ctx: SandboxContext, tx: RecordsTransaction, app: AppRecord, template: CardTemplateRecord, input: PurchaseInput) {
  const now = ctx.clock.now();
  const tierId = input.tierId ?? null;
  if (template.purchaseMode === "direct") {
    const card = await openCard(tx, app, { merchantId: input.merchantId, templateId: template.id, appUserId: input.appUserId, tierId, applicationId: null }, now);
    return { resultType: 1 as const, id: card.id };
  }
  const application: CreditApplicationRecord = {
    id: APPLICATION_ID_BASE + BigInt(await tx.nextSequence("application")),
    appKey: app.appKey,
    merchantId: input.merchantId,
    templateId: template.id,
    appUserId: input.appUserId,
    tierId,
    status: "PENDING",
    createTime: now,
    reviewTime: null,
    reason: null,
    memberCardId: null,
  };
  await tx.insertApplication(application);
  return { resultType: 2 as const, id: application.id };
}

/**
 * Runs a review of the application in its app's transaction, once it is found and pending; the
 * callback it records with the review is sent after the commit.
 */
async function review(ctx: SandboxContext, applicationId: bigint, decide: (tx: RecordsTransaction, application: CreditApplicationRecord) => Promise<PreparedCallback>) {
  const found = await ctx.records.application(applicationId);
  if (!found) {
    const hint = await roundedIdHintOf(applicationId, async (id) => (await ctx.records.application(id)) !== undefined);
    throw signedError("CREDIT_APPLICATION_NOT_FOUND", `applicationId ${applicationId}: no such credit application.${hint}`);
  }
  const { application, callback } = await ctx.records.transaction(found.appKey, async (tx) => {
    const application = (await tx.application(applicationId)) ?? found;
    requirePending(application);
    const callback = await decide(tx, application);
    await tx.enqueueCallback(callback.event);
    return { application, callback };
  });
  await ctx.callbacks.dispatch(callback);
  return { application: applicationView(application), eventId: callback.event.eventId };
}

function requirePending(application: CreditApplicationRecord): void {
  const applicationId = application.id;
  if (application.status !== "PENDING") {
    throw signedError("CREDIT_APPLICATION_NOT_PENDING", `applicationId ${applicationId} was already ${application.status.toLowerCase()}.`);
  }
}

export function applicationView(application: CreditApplicationRecord) {
  return {
    id: application.id,
    merchantId: application.merchantId,
    templateId: application.templateId,
    appUserId: application.appUserId,
    status: application.status,
    createTime: formatPlatformTime(application.createTime),
    reviewTime: application.reviewTime === null ? null : formatPlatformTime(application.reviewTime),
    reason: application.reason,
    memberCardId: application.memberCardId,
  };
}

/** Control API: the merchant approves; the card opens and the app hears of it. */
export function approveApplication(ctx: SandboxContext, applicationId: bigint) {
  return review(ctx, applicationId, async (tx, application) => {
    const app = ctx.records.app(application.appKey);
    const now = ctx.clock.now();
    const memberCardId = MEMBER_CARD_ID_BASE + BigInt(await tx.nextSequence("memberCard"));
    const callback = ctx.callbacks.prepare({
      type: "member_card.application.approved",
      appKey: application.appKey,
      targetUrl: app?.callbackUrl ?? null,
      createTime: now,
      data: {
        applicationId: application.id,
        memberCardId,
        merchantId: application.merchantId,
        templateId: application.templateId,
        appUserId: application.appUserId,
        reviewTime: formatPlatformTime(now),
      },
    });
    await tx.insertMemberCard({
      id: memberCardId,
      appKey: application.appKey,
      merchantId: application.merchantId,
      templateId: application.templateId,
      appUserId: application.appUserId,
      tierId: application.tierId,
      createTime: now,
      applicationId: application.id,
    });
    application.status = "APPROVED";
    application.reviewTime = now;
    application.memberCardId = memberCardId;
    await tx.updateApplication(application);
    return callback;
  });
}

/** Control API: the merchant rejects, with a reason the app receives. */
export function rejectApplication(ctx: SandboxContext, applicationId: bigint, reason: string) {
  return review(ctx, applicationId, async (tx, application) => {
    const app = ctx.records.app(application.appKey);
    const now = ctx.clock.now();
    const callback = ctx.callbacks.prepare({
      type: "member_card.application.rejected",
      appKey: application.appKey,
      targetUrl: app?.callbackUrl ?? null,
      createTime: now,
      data: {
        applicationId: application.id,
        merchantId: application.merchantId,
        templateId: application.templateId,
        appUserId: application.appUserId,
        reviewTime: formatPlatformTime(now),
        reason,
      },
    });
    application.status = "REJECTED";
    application.reviewTime = now;
    application.reason = reason;
    await tx.updateApplication(application);
    return callback;
  });
}
