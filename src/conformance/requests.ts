// Builds the requests checks send: correctly signed ones, and deliberately broken variants.
import { stringifyJson } from "../json/index.js";
import { sign, signRequestHeaders } from "../signing/index.js";
import type { RecordedRequest } from "./http.js";

export type ParamValue = string | number | bigint | boolean;

export interface RequestInput {
  pathParams?: Record<string, ParamValue>;
  query?: Record<string, ParamValue | undefined>;
  /** An object is sent as compact JSON (bigint as exact digits); a string is sent as is. */
  body?: unknown;
  /** Deliberate faults, for the signature checks. */
  tamper?: SignatureTamper;
  /**
   * The request is deliberately invalid in its path (an id beyond int64): an unrouted answer
   * (100015) is then judged like any other, not read as "the operation is not implemented".
   */
  invalidPath?: boolean;
}

export interface SignatureTamper {
  omitHeader?: "X-App-Key" | "X-Timestamp" | "X-Nonce" | "X-Sign";
  appKey?: string;
  timestamp?: string;
  nonce?: string;
  /** Sign with this secret instead of the app's. */
  secret?: string;
  /** Replace the computed signature. */
  sign?: (computed: { base64: string; hex: string }) => string;
  /** Sign this text but send the real body (a body changed after signing). */
  signedBody?: string;
}

export function buildUrl(base: string, path: string, input: RequestInput): string {
  const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = input.pathParams?.[name];
    if (value === undefined) throw new Error(`path parameter ${name} is missing`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(input.query ?? {})) if (value !== undefined) query.set(name, String(value));
  const search = query.toString();
  return `${base}${filled}${search ? `?${search}` : ""}`;
}

export function bodyText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === "string" ? body : stringifyJson(body);
}

export interface SignedCredentials {
  appKey: string;
  appSecret: string;
}

export function signedRequest(method: string, url: string, body: string | undefined, credentials: SignedCredentials, tamper: SignatureTamper = {}): RecordedRequest {
  const headers: Record<string, string> = signRequestHeaders({ appKey: credentials.appKey, appSecret: credentials.appSecret, body: body ?? "" }) as Record<string, string>;
  const appKey = tamper.appKey ?? credentials.appKey;
  const timestamp = tamper.timestamp ?? headers["X-Timestamp"]!;
  const nonce = tamper.nonce ?? headers["X-Nonce"]!;
  if (tamper.appKey || tamper.timestamp || tamper.nonce || tamper.secret || tamper.sign || tamper.signedBody !== undefined) {
    const signature = sign({ appKey, appSecret: tamper.secret ?? credentials.appSecret, timestamp, nonce, body: tamper.signedBody ?? body ?? "" });
    const hex = Buffer.from(signature, "base64").toString("hex");
    headers["X-App-Key"] = appKey;
    headers["X-Timestamp"] = timestamp;
    headers["X-Nonce"] = nonce;
    headers["X-Sign"] = tamper.sign ? tamper.sign({ base64: signature, hex }) : signature;
  }
  if (tamper.omitHeader) delete headers[tamper.omitHeader];
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return { method, url, headers, ...(body !== undefined && { body }) };
}

export function bearerRequest(method: string, url: string, apiKey: string | undefined): RecordedRequest {
  return { method, url, headers: apiKey === undefined ? {} : { Authorization: `Bearer ${apiKey}` } };
}
