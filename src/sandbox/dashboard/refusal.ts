// What the dashboard shows for a refused signature: the four headers that arrived and the
// string the sandbox expected to be signed (appKey + timestamp + nonce + body). Never the
// secret, and not the signature the secret would give: the string is what a developer compares
// with what their code HMACs. The X-Sign that arrived is shown masked (masking.ts).
import { maskSignature } from "./masking.js";

export interface SignatureRefusal {
  name: string;
  message: string;
  received: { appKey: string | null; timestamp: string | null; nonce: string | null; sign: string | null };
  /** null when a header it is made of is missing. */
  expectedStringToSign: string | null;
  /** Whether the body part was cut for display. */
  truncated: boolean;
  /**
   * false when the request was refused before its body was read (the pre-body check: a stale
   * timestamp, an unknown app key): the expected string then ends where the body would begin.
   */
  bodyRead: boolean;
}

/** Bodies longer than this are cut in the display (the check itself used all of it). */
export const SHOWN_BODY_CHARS = 4000;

const header = (value: string | string[] | undefined): string | null => (Array.isArray(value) ? value.join(", ") : (value ?? null));

export function describeRefusal(
  failure: { name: string; message: string },
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer | undefined,
): SignatureRefusal {
  const sign = header(headers["x-sign"]);
  const received = {
    appKey: header(headers["x-app-key"]),
    timestamp: header(headers["x-timestamp"]),
    nonce: header(headers["x-nonce"]),
    sign: sign === null ? null : maskSignature(sign),
  };
  const body = (rawBody ?? Buffer.alloc(0)).toString("utf8");
  const truncated = body.length > SHOWN_BODY_CHARS;
  const shown = truncated ? `${body.slice(0, SHOWN_BODY_CHARS)}…` : body;
  const complete = received.appKey && received.timestamp && received.nonce;
  return {
    name: failure.name,
    message: failure.message,
    received,
    // The rule itself, concatenated as received (stringToSign would refuse a malformed part).
    expectedStringToSign: complete ? `${received.appKey}${received.timestamp}${received.nonce}${shown}` : null,
    truncated,
    bodyRead: rawBody !== undefined,
  };
}
