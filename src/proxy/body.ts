// Reads a request body whole, up to the contract's limit (1 MiB, registry code 100013). A
// Content-Length over the limit is refused before a byte of the body is read; a chunked body is
// cut off as soon as it passes the limit, so an oversize body never fills memory.
import type { IncomingMessage } from "node:http";

/** The contract's body limit (registry 100013 BODY_TOO_LARGE: "larger than 1 MiB"). */
export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyRead = { ok: true; body: Buffer } | { ok: false; reason: "too-large" | "aborted" };

/** True when the declared Content-Length alone already exceeds the limit. */
export function declaredTooLarge(req: IncomingMessage, limit = MAX_BODY_BYTES): boolean {
  const declared = req.headers["content-length"];
  return declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit;
}

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead) => {
      if (settled) return;
      settled = true;
      req.off("data", onData).off("end", onEnd).off("error", onAbort).off("aborted", onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        settle({ ok: false, reason: "too-large" });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    const onAbort = () => settle({ ok: false, reason: "aborted" });
    req.on("data", onData).on("end", onEnd).on("error", onAbort).on("aborted", onAbort);
  });
}
