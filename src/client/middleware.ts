// The two authentication middlewares. The signing one is registered after every other request
// middleware (core.ts keeps it last), so it signs the Request exactly as it will be sent: the
// body bytes are read from the final Request itself, never re-serialized from an object.
import type { Middleware } from "openapi-fetch";
import { SigningInputError, signRequestHeaders } from "../signing/index.js";
import { ClientConfigError } from "./errors.js";

/** What the signing middleware needs: the app's key and secret, and optionally a clock and nonces. */
export interface SigningMiddlewareOptions {
  /** X-App-Key. */
  appKey: string;
  /** The app secret; the HMAC key. Never sent. */
  appSecret: string;
  /** The clock in epoch milliseconds; default Date.now. */
  now?: (() => number) | undefined;
  /** Makes each X-Nonce; default crypto.randomUUID (inside signRequestHeaders). */
  nonce?: (() => string) | undefined;
}

/** The body bytes a Request will send; undefined when it has none. Reads a clone, so the body stays unread. */
async function bodyBytes(request: Request): Promise<Uint8Array | undefined> {
  if (request.body === null) return undefined;
  return new Uint8Array(await request.clone().arrayBuffer());
}

/**
 * Makes a function that signs a Request in place and returns it: the four signature headers over
 * its exact body bytes, with a fresh timestamp and nonce per call. It fits request interceptors
 * of generated clients (hey-api's `client.interceptors.request.use(...)`), and is what the
 * signing middleware and createSigningFetch use.
 *
 * @example
 * import { createRequestSigner } from "merchant-open-platform";
 * client.interceptors.request.use(createRequestSigner({ appKey: "demo-app-key", appSecret: process.env.MOP_APP_SECRET! }));
 */
export function createRequestSigner(options: SigningMiddlewareOptions): (request: Request) => Promise<Request> {
  const signHeaders = createHeaderSigner(options);
  return async (request) => {
    signHeaders(request.headers, await bodyBytes(request));
    return request;
  };
}

/** What the authentication writes its headers into: a Headers, or the direct path's plain record (core.ts). */
export interface HeaderTarget {
  set(name: string, value: string): void;
  has(name: string): boolean;
}

/**
 * Sets the four signature headers on `headers`, over `body` exactly as it will be sent (the
 * client's direct path signs the JSON text it is about to send, with no Request to read back).
 */
export function createHeaderSigner(options: SigningMiddlewareOptions): (headers: HeaderTarget, body: string | Uint8Array | undefined) => void {
  const { appKey, appSecret, now, nonce } = options;
  return (target, body) => {
    let headers;
    try {
      headers = signRequestHeaders({
        appKey,
        appSecret,
        body,
        ...(now ? { now } : {}),
        ...(nonce ? { nonce: nonce() } : {}),
      });
    } catch (error) {
      // A clock or nonce generator the app injected produced something unusable.
      if (error instanceof SigningInputError) {
        throw new ClientConfigError(error.field, `cannot sign the request: ${error.message}`, { cause: error });
      }
      throw error;
    }
    for (const [name, value] of Object.entries(headers)) target.set(name, value);
  };
}

/**
 * An openapi-fetch middleware that sets X-App-Key, X-Timestamp, X-Nonce and X-Sign on each
 * request. Runs on every attempt, so a retried call is signed afresh (new timestamp and nonce):
 * the service refuses a reused nonce. createSignedClient installs it itself; use it directly
 * only with an openapi-fetch client of your own.
 *
 * @example
 * import createClient from "openapi-fetch";
 * import { signingMiddleware, type SignedPaths } from "merchant-open-platform";
 * const client = createClient<SignedPaths>({ baseUrl: "http://127.0.0.1:4010/open-api/v1" });
 * client.use(signingMiddleware({ appKey: "demo-app-key", appSecret: "demo-app-secret" }));
 */
export function signingMiddleware(options: SigningMiddlewareOptions): Middleware {
  const sign = createRequestSigner(options);
  return { onRequest: ({ request }) => sign(request) };
}

/**
 * An openapi-fetch middleware for the key-based interface: Authorization: Bearer <API_KEY>.
 * The source also says these requests carry Content-Type: application/json, so it is set when
 * missing. createKeyedClient installs it itself.
 */
export function bearerMiddleware(apiKey: string): Middleware {
  const authorize = bearerHeaders(apiKey);
  return {
    onRequest({ request }) {
      authorize(request.headers);
      return request;
    },
  };
}

/** Sets Authorization: Bearer <API_KEY>, and Content-Type: application/json when missing. */
export function bearerHeaders(apiKey: string): (headers: HeaderTarget) => void {
  return (headers) => {
    headers.set("Authorization", `Bearer ${apiKey}`);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  };
}
