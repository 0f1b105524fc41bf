// A recorded request as the dashboard shows it: one line in the list (polled every second, so
// small), and the full detail fetched when the developer opens it: headers (masked), bodies,
// the refusal's diagnosis and the API's message, timing, the orders and trades it touched,
// and a curl command. App secrets are scrubbed from every text shown.
import { formatPlatformTime } from "../clock.js";
import type { SandboxContext } from "../context.js";
import { describeKeyedError, describeSignedError } from "../../../generated/error-codes.js";
import { curlCommand } from "./curl.js";
import { scrubSecrets } from "./masking.js";
import type { KeptBody, KeptRequest } from "./recorder.js";
import type { FaultMark } from "../faults/mark.js";

export type Outcome = "ok" | "refused" | "failed";

export interface RequestLine {
  id: number;
  time: string;
  method: string;
  url: string;
  area: KeptRequest["area"];
  operationId: string | null;
  status: number;
  code: number | null;
  /** The envelope's message of a refusal (the API's own words: which field, and why). */
  message: string | null;
  durationMs: number;
  app: string | null;
  outcome: Outcome;
  /** The registry name of the refusal (SIGNATURE_MISMATCH, VALIDATION_FAILED, …), or null. */
  diagnosis: string | null;
  /** The fault that answered it on purpose, or null. */
  fault: FaultSeen;
}

/** A request to a record that exists now: the dashboard links it to its row. */
export interface RecordLink {
  kind: "order" | "trade";
  id: string;
}

/** What answered a request when it was not the operation itself (a fault, docs/scenarios.md), or null. */
export type FaultSeen = FaultMark | null;

export interface RequestDetail extends RequestLine {
  appVerified: boolean;
  headers: [string, string][];
  requestBody: KeptBody;
  responseBody: KeptBody;
  signature: KeptRequest["signature"];
  /** The registry entry of the envelope code of a refusal. */
  error: { name: string; meaning: string } | null;
  links: RecordLink[];
  fault: FaultSeen;
  curl: { command: string } | { unavailable: string };
}

const MESSAGE_IN_LINE = 400;

function outcomeOf(kept: KeptRequest): Outcome {
  // Status 0: the connection closed without an answer.
  if (kept.status >= 500 || kept.status === 0) return "failed";
  if (kept.status >= 400 || (kept.code !== null && kept.code !== 0 && kept.code !== 200)) return "refused";
  return "ok";
}

function registryEntry(kept: KeptRequest): { name: string; meaning: string } | null {
  if (kept.code === null || outcomeOf(kept) === "ok") return null;
  const entry = kept.area === "keyed" ? describeKeyedError(kept.code) : describeSignedError(kept.code);
  return entry ? { name: entry.name, meaning: entry.meaning } : null;
}

export function requestLine(kept: KeptRequest, secrets: readonly string[]): RequestLine {
  const outcome = outcomeOf(kept);
  const message = outcome === "ok" || kept.message === null ? null : scrubSecrets(kept.message, secrets);
  return {
    id: kept.id,
    time: formatPlatformTime(kept.atMs),
    method: kept.method,
    url: scrubSecrets(kept.url, secrets),
    area: kept.area,
    operationId: kept.operationId,
    status: kept.status,
    code: kept.code,
    message: message !== null && message.length > MESSAGE_IN_LINE ? `${message.slice(0, MESSAGE_IN_LINE)}…` : message,
    durationMs: kept.durationMs,
    app: kept.appKey,
    outcome,
    diagnosis: kept.signature?.name ?? registryEntry(kept)?.name ?? null,
    fault: kept.fault,
  };
}

function scrubBody(body: KeptBody, secrets: readonly string[]): KeptBody {
  return body.kind === "kept" ? { ...body, text: scrubSecrets(body.text, secrets) } : body;
}

// Ids in a path, a query or a JSON text: what a request touched.
const ORDER_IDS = [/\/orders\/(\d{1,19})(?:\/|$)/g, /"orderId"\s*:\s*"?(\d{1,19})/g];
const TRADE_IDS = [/\/trades\/(\d{1,19})(?:\/|$)/g, /[?&]tradeNo=(\d{1,19})/g, /"tradeNo"\s*:\s*"(\d{1,19})"/g];

function idsIn(texts: readonly string[], patterns: readonly RegExp[]): Set<string> {
  const ids = new Set<string>();
  for (const text of texts) for (const pattern of patterns) for (const match of text.matchAll(pattern)) ids.add(match[1]!);
  return ids;
}

/** The orders and trades a request named or was answered with, that the sandbox holds now. */
export async function recordLinks(ctx: SandboxContext, kept: KeptRequest): Promise<RecordLink[]> {
  const texts = [kept.url];
  if (kept.requestBody.kind === "kept") texts.push(kept.requestBody.text);
  const answer = kept.responseBody.kind === "kept" ? kept.responseBody.text : "";
  texts.push(answer);
  const orders = idsIn(texts, ORDER_IDS);
  // createOrder answers the new order's id as the whole data.
  if (kept.operationId === "createOrder") for (const match of answer.matchAll(/"data"\s*:\s*(\d{1,19})/g)) orders.add(match[1]!);
  const links: RecordLink[] = [];
  for (const id of orders) if ((await ctx.records.order(BigInt(id))) !== undefined) links.push({ kind: "order", id });
  for (const id of idsIn(texts, TRADE_IDS)) if ((await ctx.records.trade(id)) !== undefined) links.push({ kind: "trade", id });
  return links;
}

export async function requestDetail(ctx: SandboxContext, kept: KeptRequest, origin: string, secrets: readonly string[]): Promise<RequestDetail> {
  const line = requestLine(kept, secrets);
  const requestBody = scrubBody(kept.requestBody, secrets);
  return {
    ...line,
    message: kept.message === null ? null : scrubSecrets(kept.message, secrets),
    appVerified: kept.appVerified,
    headers: kept.headers.map(([name, value]) => [name, scrubSecrets(value, secrets)]),
    requestBody,
    responseBody: scrubBody(kept.responseBody, secrets),
    signature: kept.signature,
    error: registryEntry(kept),
    links: await recordLinks(ctx, kept),
    fault: kept.fault,
    curl: curlCommand({ ...kept, url: line.url, requestBody }, origin),
  };
}

/** Every secret of every app, to scrub from what is shown. */
export function appSecrets(ctx: SandboxContext): string[] {
  return ctx.records.apps().flatMap((app) => [...app.appSecrets]);
}
