// The two authentication middlewares. The signing one is registered after every other request
// middleware (core.ts keeps it last), so it signs the Request exactly as it will be sent: the
// body bytes are read from the final Request itself, never re-serialized from an object.
import type { Middleware } from "openapi-fetch";
import { SigningInputError, signRequestHeaders } from "../signing/index.js";
import { ClientConfigError } from "./errors.js";

export interface SigningMiddlewareOptions {
  appKey: string;
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
 * Sets X-App-Key, X-Timestamp, X-Nonce and X-Sign on each request. Runs on every attempt, so a
 * retried call is signed afresh (new timestamp and nonce): the service refuses a reused nonce.
 */
export function signingMiddleware(options: SigningMiddlewareOptions): Middleware {
  const { appKey, appSecret, now, nonce } = options;
  return {
    async onRequest({ request }) {
      let headers;
      try {
        headers = signRequestHeaders({
          appKey,
          appSecret,
          body: await bodyBytes(request),
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
      for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
      return request;
    },
  };
}

/**
 * The key-based interface's authentication: Authorization: Bearer <API_KEY>. The source also
 * says these requests carry Content-Type: application/json, so it is set when missing.
 */
export function bearerMiddleware(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${apiKey}`);
      if (!request.headers.has("Content-Type")) request.headers.set("Content-Type", "application/json");
      return request;
    },
  };
}
