// The request body's bytes: refused by Content-Length before reading, read raw (the signature
// covers the exact bytes), and required to be JSON. Turning them into the handler's exact
// object is one step with the validator (request-body.ts).
//   refuseOversizedBody  100013 from Content-Length alone, before reading (callers put the
//                    header-only checks, e.g. the signature pre-check, before captureRawBody too)
//   captureRawBody   the bytes exactly as sent (any content type, at most 1 MiB) → state.rawBody
//   requireJson      a non-empty body must be application/json in UTF-8 (100014)
import express, { type NextFunction, type Request, type Response } from "express";
import { signedError } from "./errors.js";
import { requestState } from "./state.js";

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** True when the request announces a body (a Content-Length above 0, or chunked). */
export function announcesBody(req: Request): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = Number(req.headers["content-length"]);
  return Number.isFinite(length) && length > 0;
}

/** 100013 as soon as Content-Length says the body is over the limit, before any byte of it is read. */
export function refuseOversizedBody(req: Request, _res: Response, next: NextFunction): void {
  const header = req.headers["content-length"];
  if (header !== undefined && /^[0-9]+$/.test(header) && Number(header) > BODY_LIMIT_BYTES) {
    return next(signedError("BODY_TOO_LARGE", `The request body is larger than 1 MiB (Content-Length ${header}, the limit is ${BODY_LIMIT_BYTES} bytes).`));
  }
  next();
}

const rawParser = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES, inflate: false });

const EMPTY = Buffer.alloc(0);

export function captureRawBody(req: Request, res: Response, next: NextFunction): void {
  // No body to read (type-is's hasBody, which the parser would ask first): skip the parser.
  if (req.headers["transfer-encoding"] === undefined && Number.isNaN(Number(req.headers["content-length"]))) {
    requestState(res).rawBody = EMPTY;
    req.body = undefined;
    return next();
  }
  rawParser(req, res, (err?: unknown) => {
    if (err) return next(err);
    requestState(res).rawBody = Buffer.isBuffer(req.body) ? req.body : EMPTY;
    req.body = undefined;
    next();
  });
}

export function rawBodyOf(res: Response): Buffer {
  return requestState(res).rawBody ?? EMPTY;
}

/** True for application/json with no charset or charset=utf-8. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type = "", ...params] = header.split(";").map((part) => part.trim().toLowerCase());
  if (type !== "application/json") return false;
  return params.every((param) => {
    const [key, value = ""] = param.split("=").map((part) => part.trim());
    return key !== "charset" || value.replace(/"/g, "") === "utf-8";
  });
}

export function requireJson(req: Request, res: Response, next: NextFunction): void {
  if (rawBodyOf(res).length > 0 && !isJsonContentType(req.headers["content-type"])) {
    const given = req.headers["content-type"] ? `"${req.headers["content-type"].slice(0, 80)}"` : "none";
    return next(signedError("UNSUPPORTED_MEDIA_TYPE", `A request with a body must be sent as Content-Type: application/json (UTF-8); got ${given}.`));
  }
  next();
}
