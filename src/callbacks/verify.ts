// Verifies one callback delivery (DESIGN item 8): the same four signature headers as requests,
// signed with the app's secret over the raw body, a fresh timestamp and nonce per attempt.
// The order is the verifier's (headers, formats, window, signature, nonce), then the body is
// parsed (losslessly, so ids above 2^53 stay exact) and checked against the webhook's schema.
// Nothing of the body is looked at before its signature checks out.
//
// Never throws: every outcome is a result, so a receiver can log it and answer.
import { SignedErrors } from "../../generated/error-codes.js";
import { parseJsonLossless } from "../json/index.js";
import {
  createMemoryNonceStore,
  verifySignedRequest,
  type NonceStore,
  type RequestHeaders,
  type SignatureFailureName,
} from "../signing/index.js";
import { checkEventPayload, type CallbackEvent } from "./events.js";

/** Why a delivery was refused: a signature failure, or a body that is not a valid event. */
export type CallbackFailureName = SignatureFailureName | "BODY_NOT_JSON" | "EVENT_TYPE_UNKNOWN" | "PAYLOAD_INVALID";

/** A genuine delivery: the typed event and the signature headers it came with. */
export interface CallbackSuccess {
  ok: true;
  /** The payload, parsed losslessly (int64 ids above 2^53 - 1 are bigint) and schema-checked. */
  event: CallbackEvent;
  /** X-App-Key of the delivery. */
  appKey: string;
  /** X-Timestamp of this attempt, Unix seconds. */
  timestamp: number;
  nonce: string;
}

/** A refused delivery: a registry code, a name, a message and the HTTP status to answer. */
export interface CallbackFailure {
  ok: false;
  /** A registry code: the signature failures' own codes; 100009 for an unusable payload. */
  code: number;
  name: CallbackFailureName;
  message: string;
  /** The status a receiver should answer: 401 for signature failures, 400 for the payload, ... */
  httpStatus: number;
}

/** The answer of verifyCallback: check `ok`. */
export type CallbackVerification = CallbackSuccess | CallbackFailure;

/** One delivery as received, and the secrets to check it with. */
export interface VerifyCallbackInput {
  /** The request headers as received (a Node header record or a fetch Headers). */
  headers: RequestHeaders;
  /** The body exactly as received: bytes, or the text. Never a parsed object. */
  rawBody: string | Uint8Array;
  /** The app secret, or several during a rotation (any may match). */
  secrets: string | readonly string[];
  /** The app key the deliveries must carry; when omitted, any X-App-Key whose signature matches is accepted. */
  appKey?: string;
  /** The clock in epoch milliseconds. Default Date.now. */
  now?: () => number;
  /** Where used nonces are kept. Default: one process-wide store for callbacks. */
  nonceStore?: NonceStore;
  /** Allowed clock distance of X-Timestamp, each way. Default 300 s. */
  windowSeconds?: number;
}

let callbackNonceStore: NonceStore | undefined;

const PAYLOAD_HTTP_STATUS = 400;

function payloadFailure(name: "BODY_NOT_JSON" | "EVENT_TYPE_UNKNOWN" | "PAYLOAD_INVALID", message: string): CallbackFailure {
  return { ok: false, code: SignedErrors.VALIDATION_FAILED.code, name, message, httpStatus: PAYLOAD_HTTP_STATUS };
}

function internalFailure(message: string): CallbackFailure {
  return { ok: false, code: SignedErrors.INTERNAL_ERROR.code, name: "INTERNAL_ERROR", message, httpStatus: SignedErrors.INTERNAL_ERROR.http };
}

/** The secrets as a list, or undefined when they are unusable. */
export function secretList(secrets: unknown): string[] | undefined {
  const list = typeof secrets === "string" ? [secrets] : Array.isArray(secrets) ? (secrets as unknown[]) : undefined;
  if (!list || list.length === 0 || !list.every((secret) => typeof secret === "string" && secret !== "")) return undefined;
  return list as string[];
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Verifies one callback delivery by hand (createCallbackHandler does this for Express): the
 * signature over the raw body, the timestamp window and the nonce, then parses the payload
 * losslessly and checks it against the spec's webhook schema. Never throws.
 *
 * @example
 * ```ts
 * const result = await verifyCallback({ headers: req.headers, rawBody, secrets: process.env.MOP_APP_SECRET! });
 * if (!result.ok) return res.status(result.httpStatus).type("text").send(`${result.name}: ${result.message}`);
 * if (result.event.type === "payment.succeeded") await markPaid(result.event.data.outTradeNo);
 * res.type("text").send("success");
 * ```
 */
export async function verifyCallback(input: VerifyCallbackInput): Promise<CallbackVerification> {
  const given = (typeof input === "object" && input !== null ? input : {}) as Partial<VerifyCallbackInput>;
  const secrets = secretList(given.secrets);
  if (!secrets) return internalFailure("The receiver has no usable app secret configured (secrets must be a non-empty string or list of them).");
  const { rawBody, appKey: expectedAppKey } = given;
  if (typeof rawBody !== "string" && !(rawBody instanceof Uint8Array)) {
    return internalFailure("The receiver passed no raw body; verify the body exactly as received (bytes or text), not a parsed object.");
  }

  const signature = await verifySignedRequest({
    headers: given.headers ?? {},
    body: rawBody,
    secretsFor: (appKey) => (expectedAppKey === undefined || appKey === expectedAppKey ? secrets : undefined),
    nonceStore: given.nonceStore ?? (callbackNonceStore ??= createMemoryNonceStore()),
    ...(given.now ? { now: given.now } : {}),
    ...(given.windowSeconds !== undefined ? { windowSeconds: given.windowSeconds } : {}),
  });
  if (!signature.ok) {
    return { ok: false, code: signature.code, name: signature.name, message: signature.message, httpStatus: signature.httpStatus };
  }

  let text: string;
  try {
    text = typeof rawBody === "string" ? rawBody : utf8.decode(rawBody);
  } catch {
    return payloadFailure("BODY_NOT_JSON", "The callback body is not valid UTF-8 text.");
  }
  let payload: unknown;
  try {
    payload = parseJsonLossless(text);
  } catch (error) {
    return payloadFailure("BODY_NOT_JSON", `The callback body is not JSON: ${(error as Error).message}`);
  }
  let check;
  try {
    check = checkEventPayload(payload);
  } catch {
    return internalFailure("The receiver could not load the callback schemas (generated/signed.openapi.json).");
  }
  if (!check.ok) return payloadFailure(check.name, check.message);
  return { ok: true, event: check.event, appKey: signature.appKey, timestamp: signature.timestamp, nonce: signature.nonce };
}
