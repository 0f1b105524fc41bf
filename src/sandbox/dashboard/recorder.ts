// The dashboard's memory of the latest requests: a ring buffer filled by a middleware that runs
// for every request (whatever the logger does), so the page can show what happened without
// the developer reading JSON lines. Each record keeps what a request detail shows (headers
// masked, bodies cut at a bound), so memory stays bounded: at most `capacity` records of at most
// about 2 × KEPT_BODY_BYTES + the headers Node accepts (16 KiB) each.
//
// The dashboard's own reads (GET /sandbox/ui/...) are not recorded: they are counted.
import type { NextFunction, Request, Response } from "express";
import type { SandboxClock } from "../clock.js";
import { operationRoutes, type SpecName } from "../../contract/index.js";
import { requestState, requestSummary, type RequestSummary } from "../../server/index.js";
import { maskHeader } from "./masking.js";
import { describeRefusal, type SignatureRefusal } from "./refusal.js";
import type { FaultMark } from "../faults/mark.js";

/** Request and response bodies are kept up to this many bytes each. */
export const KEPT_BODY_BYTES = 8 * 1024;
/** A URL, a header value or an envelope message is kept up to this many characters. */
export const KEPT_TEXT_CHARS = 2048;
/** At most this many headers of a request are kept. */
export const KEPT_HEADERS = 64;

/** Which part of the sandbox answered, by the path's first segment. */
export type SandboxArea = "signed" | "keyed" | "control" | "dashboard" | "cashier" | "docs" | "other";

export type KeptBody =
  | { kind: "none" }
  /** Refused before the body was read: the bytes were never looked at. */
  | { kind: "not-read" }
  /** Not an API envelope (a page, a file): not kept. */
  | { kind: "not-kept"; contentType: string | null }
  | { kind: "kept"; text: string; bytes: number; truncated: boolean };

export interface KeptRequest {
  id: number;
  /** Sandbox clock, epoch ms. */
  atMs: number;
  method: string;
  /** The path and query as sent (cut at KEPT_TEXT_CHARS). */
  url: string;
  path: string;
  area: SandboxArea;
  operationId: string | null;
  status: number;
  code: number | null;
  /** The envelope's msg (key-based: message): what the API told the client. */
  message: string | null;
  durationMs: number;
  /** The app key the request named (verified or not: see appVerified); a key-based caller's key, masked. */
  appKey: string | null;
  appVerified: boolean;
  /** The request's headers in the order sent, secrets masked. */
  headers: [string, string][];
  requestBody: KeptBody;
  responseBody: KeptBody;
  /** For a refused signature: what arrived and the string the sandbox expected to be signed. */
  signature: SignatureRefusal | null;
  /** The fault that answered it on purpose (docs/scenarios.md); null for none. */
  fault: FaultMark | null;
}

export interface RequestRecorder {
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  /** Newest first. */
  list(): KeptRequest[];
  get(id: number): KeptRequest | undefined;
  /** The dashboard's own reads, counted instead of recorded. */
  readonly ownRequests: number;
  clear(): void;
}

const AREAS: readonly [string, SandboxArea][] = [
  ["/open-api", "signed"],
  ["/v1", "keyed"],
  ["/sandbox/ui", "dashboard"],
  ["/sandbox", "control"],
  ["/cashier", "cashier"],
  ["/docs", "docs"],
];

export function areaOf(path: string): SandboxArea {
  const lower = path.toLowerCase();
  for (const [prefix, area] of AREAS) if (lower === prefix || lower.startsWith(`${prefix}/`)) return area;
  return "other";
}

/** GET /sandbox/ui/...: the dashboard polling and loading itself (not its resend, a user's action). */
export function isDashboardRead(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD") && areaOf(path) === "dashboard";
}

const SPEC_OF: Partial<Record<SandboxArea, SpecName>> = { signed: "signed", keyed: "keyed", control: "sandbox-control" };

const cut = (text: string, limit = KEPT_TEXT_CHARS) => (text.length > limit ? `${text.slice(0, limit)}…` : text);

function keptBody(bytes: Buffer | string | undefined, fallback: KeptBody): KeptBody {
  if (bytes === undefined) return fallback;
  const buffer = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
  if (buffer.length === 0) return { kind: "none" };
  // A copy of the kept part only, so the record never holds on to a 1 MiB body.
  return { kind: "kept", text: buffer.subarray(0, KEPT_BODY_BYTES).toString("utf8"), bytes: buffer.length, truncated: buffer.length > KEPT_BODY_BYTES };
}

function keptHeaders(rawHeaders: readonly string[]): [string, string][] {
  const headers: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length && headers.length < KEPT_HEADERS; i += 2) {
    const name = rawHeaders[i]!;
    headers.push([cut(name, 256), cut(maskHeader(name, rawHeaders[i + 1]!))]);
  }
  return headers;
}

/**
 * The operation a request was addressed to: the one served, else (a request refused before
 * routing: a stale signature, a body too large) the one the spec's route table names.
 */
function operationOf(summary: RequestSummary, area: SandboxArea): string | null {
  if (summary.operationId !== null) return summary.operationId;
  const spec = SPEC_OF[area];
  return spec === undefined ? null : (operationRoutes(spec)(summary.method, summary.path)?.operationId ?? null);
}

function record(id: number, atMs: number, req: Request, res: Response): KeptRequest {
  const summary = requestSummary(req, res);
  const area = areaOf(summary.path);
  const header = req.headers["x-app-key"];
  const namedApp = typeof header === "string" ? cut(header, 256) : null;
  const contentType = res.getHeader("content-type");
  const refusal = summary.signatureRefusal;
  return {
    id,
    atMs,
    method: summary.method,
    url: cut(summary.url),
    path: cut(summary.path),
    area,
    operationId: operationOf(summary, area),
    // 0: the connection closed without an answer (a fault's timeout or reset, a client gone).
    status: summary.status,
    code: summary.code,
    message: summary.message === null ? null : cut(summary.message),
    durationMs: summary.durationMs,
    appKey: summary.appKey ?? namedApp ?? (summary.apiKey === null ? null : `API key ${summary.apiKey.slice(0, 4)}…`),
    appVerified: summary.appKey !== null,
    headers: keptHeaders(req.rawHeaders),
    requestBody: keptBody(summary.requestBody, summary.bodyAnnounced ? { kind: "not-read" } : { kind: "none" }),
    responseBody: keptBody(summary.answerText, { kind: "not-kept", contentType: typeof contentType === "string" ? contentType : null }),
    // What arrived and the string the sandbox expected to be signed.
    signature: refusal === null ? null : describeRefusal(refusal.failure, req.headers, refusal.bodyRead ? (summary.requestBody ?? Buffer.alloc(0)) : undefined),
    // The sandbox's faults set only their own marks (faults/step.ts).
    fault: summary.fault as FaultMark | null,
  };
}

/** The latest `capacity` requests in a ring (no array copied per request). */
export function createRequestRecorder(clock: SandboxClock, capacity = 100): RequestRecorder {
  let ring: (KeptRequest | undefined)[] = new Array<KeptRequest | undefined>(capacity);
  let next = 0;
  let count = 0;
  let lastId = 0;
  let ownRequests = 0;
  return {
    middleware(req, res, next_) {
      const url = req.originalUrl;
      const query = url.indexOf("?");
      if (isDashboardRead(req.method, query === -1 ? url : url.slice(0, query))) {
        ownRequests += 1;
        return next_();
      }
      // The request's clock starts here (its state's startedAt).
      requestState(res);
      const atMs = clock.now();
      const id = ++lastId;
      let kept = false;
      const keep = () => {
        if (kept) return;
        kept = true;
        ring[next] = record(id, atMs, req, res);
        next = (next + 1) % capacity;
        count = Math.min(count + 1, capacity);
      };
      res.once("finish", keep);
      // A request whose connection closed without an answer is kept too.
      res.once("close", keep);
      next_();
    },
    list() {
      const newestFirst: KeptRequest[] = [];
      for (let i = 1; i <= count; i++) {
        const kept = ring[(next - i + capacity) % capacity];
        if (kept) newestFirst.push(kept);
      }
      return newestFirst;
    },
    get(id) {
      return ring.find((kept) => kept?.id === id);
    },
    get ownRequests() {
      return ownRequests;
    },
    clear() {
      ring = new Array<KeptRequest | undefined>(capacity);
      next = 0;
      count = 0;
    },
  };
}
