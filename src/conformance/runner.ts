// Runs the selected checks against a server and collects their results.
import { randomBytes } from "node:crypto";
import type { Check, CheckOrigin, CheckResult } from "./check.js";
import { CheckFailure, CheckSkipped, ConnectionError, OptionsError } from "./errors.js";
import { ALL_CHECKS } from "./checks/index.js";
import { CheckContext } from "./context.js";
import { ControlApi } from "./control.js";
import { ConformanceHttp, type Exchange } from "./http.js";
import { diagnoseClock, readingFromControl, readingFromDate, type ClockDiagnosis, type ClockReading } from "./clock.js";
import { CLOCK_CHECK } from "./checks/clock.js";
import { buildUrl, signedRequest } from "./requests.js";
import { resolveOptions, type ConformanceOptions, type ResolvedOptions } from "./options.js";
import { createRequestPacer } from "./pacer.js";
import { CallbackReceiver } from "./receiver.js";
import { schemasFor } from "../contract/index.js";

export interface ConformanceReport {
  target: { baseUrl: string; basePath: string; controlApi: boolean; callbackReceiver: string | undefined };
  /** The server's clock against this machine's, when measured (ms, server minus here). */
  clock?: { skewMs: number | undefined; readings: ClockReading[]; aimSeconds: number };
  startedAt: string;
  durationMs: number;
  results: CheckResult[];
  counts: { passed: number; failed: number; skipped: number };
  /** The same counts for the checks of each origin: what the source demands, then what the contract adds. */
  countsByOrigin: Record<CheckOrigin, { passed: number; failed: number; skipped: number }>;
}

export interface RunHooks {
  onCheckStart?: (check: Check, done: number, total: number) => void;
  onCheckDone?: (result: CheckResult, done: number, total: number) => void;
}

/** A check matches its name, a group prefix (`signature`), a tag, or its origin (`source`, `designed`). */
const matches = (check: Check, pattern: string) => check.name === pattern || check.name.startsWith(`${pattern}.`) || check.tags.includes(pattern) || check.origin === pattern;

/** A pattern of --include / --exclude that matches no check is a typo, not a selection: refused. */
export function unknownPatterns(options: Pick<ResolvedOptions, "include" | "exclude">, checks: readonly Check[] = ALL_CHECKS): string[] {
  return [...options.include, ...options.exclude].filter((pattern) => !checks.some((check) => matches(check, pattern)));
}

export function selectChecks(options: Pick<ResolvedOptions, "include" | "exclude" | "variants">, checks: readonly Check[] = ALL_CHECKS): Check[] {
  return checks.filter(
    (check) =>
      (options.include.length === 0 || options.include.some((p) => matches(check, p))) &&
      !options.exclude.some((p) => matches(check, p)) &&
      (!check.needs?.includes("signed") || options.variants.includes("signed")) &&
      (!check.needs?.includes("keyed") || options.variants.includes("keyed")),
  );
}

function missingNeed(check: Check, options: ResolvedOptions): string | undefined {
  if (check.needs?.includes("apiKey") && !options.apiKey) return "no --api-key for the key-based interface";
  if (check.needs?.includes("foreignMerchant") && !options.foreignMerchantId) return "no --foreign-merchant-id (a merchant not authorised for the app)";
  return undefined;
}

export async function runConformance(input: ConformanceOptions, hooks: RunHooks = {}): Promise<ConformanceReport> {
  const options = resolveOptions(input);
  const unknown = unknownPatterns(options);
  if (unknown.length > 0) throw new OptionsError(`--include/--exclude ${unknown.map((p) => `"${p}"`).join(", ")} match${unknown.length === 1 ? "es" : ""} no check name, group, tag or origin (source, designed); see mop check --list`);
  const started = Date.now();
  const http = new ConformanceHttp({ timeoutMs: options.timeoutMs, pacer: createRequestPacer(options.rateLimit), ...(options.fetch && { fetch: options.fetch }) });

  const probe = await http.send({ method: "GET", url: `${options.baseUrl}${options.basePath}/stores`, headers: {} });
  if (!probe.response) throw new ConnectionError(`cannot reach ${options.baseUrl}${options.basePath}: ${probe.error}`);

  const checks = selectChecks(options);
  const control = options.controlUrl ? await ControlApi.probe(http, options.controlUrl) : undefined;
  const wantsReceiver = checks.some((check) => check.needs?.includes("receiver"));
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
  const receiver = wantsReceiver ? await startReceiver(options, runId) : undefined;
  const schemas = { signed: schemasFor("signed"), keyed: schemasFor("keyed") };
  const ctx = new CheckContext(options, http, schemas, control, receiver, runId);

  const results: CheckResult[] = new Array(checks.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < checks.length) {
      const index = next++;
      const check = checks[index]!;
      hooks.onCheckStart?.(check, done, checks.length);
      results[index] = await runOne(check, ctx, options);
      done += 1;
      hooks.onCheckDone?.(results[index]!, done, checks.length);
    }
  };
  try {
    ctx.clock = await measureClock(ctx, probe, checks);
    await Promise.all(Array.from({ length: Math.min(options.concurrency, checks.length) }, worker));
  } finally {
    await receiver?.close();
  }
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const countsByOrigin: ConformanceReport["countsByOrigin"] = { source: { passed: 0, failed: 0, skipped: 0 }, designed: { passed: 0, failed: 0, skipped: 0 } };
  for (const result of results) {
    counts[result.status] += 1;
    countsByOrigin[result.origin][result.status] += 1;
  }
  return {
    target: { baseUrl: options.baseUrl, basePath: options.basePath, controlApi: Boolean(control), callbackReceiver: receiver?.url },
    ...(ctx.clock && { clock: { skewMs: ctx.clock.skewMs, readings: ctx.clock.readings, aimSeconds: ctx.clock.aimSeconds } }),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    results,
    counts,
    countsByOrigin,
  };
}

async function startReceiver(options: ResolvedOptions, runId: string): Promise<CallbackReceiver> {
  try {
    return await CallbackReceiver.start(options.receiverHost, options.receiverPort, options.notifyUrl, runId, options.receiverTls);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConnectionError(`the callback receiver cannot listen on ${options.receiverHost}:${options.receiverPort}: ${code ?? (error as Error).message} (choose --receiver-host/--receiver-port, or --exclude callbacks)`);
  }
}

/** Reads the server's clock (Date header, control API) and sends one correctly signed request. */
async function measureClock(ctx: CheckContext, probe: Exchange, checks: Check[]): Promise<ClockDiagnosis | undefined> {
  if (!checks.some((check) => check.needs?.includes("signed"))) return undefined;
  const readings = [readingFromDate(probe), ctx.control && (await readingFromControl(ctx.control))].filter((r): r is ClockReading => r !== undefined);
  const operation = ctx.schemas.signed.operation("listStores");
  const url = buildUrl(ctx.options.baseUrl + ctx.options.basePath, operation.path, {});
  const signed = await ctx.http.send(signedRequest(operation.method, url, undefined, ctx.options));
  return diagnoseClock(readings, signed);
}

async function runOne(check: Check, ctx: CheckContext, options: ResolvedOptions): Promise<CheckResult> {
  const base = { name: check.name, tags: check.tags, origin: check.origin, purpose: check.purpose };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const missing = missingNeed(check, options);
  if (missing) return { ...base, status: "skipped", durationMs: 0, reason: missing };
  if (ctx.clock?.refusal && check.needs?.includes("signed") && !check.tags.includes("clock")) {
    return { ...base, status: "skipped", durationMs: 0, reason: `not run: the server refuses requests timed by this machine's clock (see ${CLOCK_CHECK})` };
  }
  try {
    await check.run(ctx);
    return { ...base, status: "passed", durationMs: elapsed() };
  } catch (error) {
    if (error instanceof CheckSkipped) return { ...base, status: "skipped", durationMs: elapsed(), reason: error.message };
    if (error instanceof CheckFailure) return { ...base, status: "failed", durationMs: elapsed(), reason: error.message, failure: error.detail };
    const message = error instanceof Error ? error.message : String(error);
    return { ...base, status: "failed", durationMs: elapsed(), reason: `the check could not complete: ${message}`, failure: { message, expected: "the check to complete", rule: check.rule } };
  }
}
