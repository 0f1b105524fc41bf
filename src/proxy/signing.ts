// The signing proxy (mop proxy --sign): gives each request to the signed interface fresh
// X-Timestamp, X-Nonce and X-Sign over the exact body bytes it forwards, so tools that cannot
// compute an HMAC (curl, Postman, workflow runners, load tools) can drive the interface.
// A request that already carries X-Sign passes unchanged unless `replace` is set.
import type { IncomingMessage } from "node:http";
import { SIGNATURE_HEADERS, signRequestHeaders } from "../signing/index.js";
import { headerValue, type HeaderPairs } from "./headers.js";

export interface SigningOptions {
  /** appKey → secrets; the first secret of an app signs (DESIGN item 8: the primary). */
  apps: Map<string, string[]>;
  /** The app used when a request names none of the configured keys: the first one given. */
  defaultAppKey: string;
  /** Re-sign requests that already carry X-Sign. Default: pass them unchanged. */
  replace?: boolean;
  /** Epoch milliseconds; injectable for tests. */
  now?: () => number;
  /** Nonce source; injectable for tests. Default: a random UUID. */
  nonce?: () => string;
}

const SIGNATURE_NAMES = Object.values(SIGNATURE_HEADERS).map((name) => name.toLowerCase());

/** True when the proxy signs this request: it carries no X-Sign of its own, or signatures are replaced. */
export function willSign(req: IncomingMessage, replace: boolean | undefined): boolean {
  return Boolean(replace) || req.headers[SIGNATURE_HEADERS.sign.toLowerCase()] === undefined;
}

/**
 * The headers with a fresh signature, or undefined when the request keeps its own. The app is
 * the one the request's X-App-Key names when the proxy knows it, otherwise the default app.
 */
export function signedHeaders(pairs: HeaderPairs, body: Buffer, options: SigningOptions): HeaderPairs | undefined {
  if (!options.replace && headerValue(pairs, SIGNATURE_HEADERS.sign) !== undefined) return undefined;
  const named = headerValue(pairs, SIGNATURE_HEADERS.appKey);
  const appKey = named !== undefined && options.apps.has(named) ? named : options.defaultAppKey;
  const appSecret = options.apps.get(appKey)![0]!;
  const signature = signRequestHeaders({ appKey, appSecret, body, ...(options.now && { now: options.now }), ...(options.nonce && { nonce: options.nonce() }) });
  const kept = pairs.filter(([name]) => !SIGNATURE_NAMES.includes(name.toLowerCase()));
  return [...kept, ...(Object.entries(signature) as [string, string][])];
}
