// The request body, from bytes to the handler's exact object, one step each:
//   refuseOversizedBody  100013 from Content-Length alone, before reading (callers put the
//                    header-only checks, e.g. the signature pre-check, before captureRawBody too)
//   captureRawBody   the bytes exactly as sent (any content type, at most 1 MiB) → res.locals.rawBody
//   requireJson      a non-empty body must be application/json in UTF-8 (100014)
//   parseJsonBody    lossless parse (100009 naming the position); req.body gets a Number copy
//                    for the validator when the body holds a bigint (else the parsed value
//                    itself), res.locals.exactRequestBody keeps the bigints
//   exactBodyAfterValidation  int64 range and exactness checked (100009), then the validated
//                    copy (with the validator's defaults) merged with the exact bigints and the
//                    original notifyUrl → res.locals.body, what the handler reads
import express, { type NextFunction, type Request, type Response } from "express";
import { signedError } from "./errors.js";
import { forValidator, inexactIntegers, mergeExact, parseExactJson } from "./int64.js";

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
    res.locals.rawBody = EMPTY;
    req.body = undefined;
    return next();
  }
  rawParser(req, res, (err?: unknown) => {
    if (err) return next(err);
    res.locals.rawBody = Buffer.isBuffer(req.body) ? req.body : EMPTY;
    req.body = undefined;
    next();
  });
}

function rawBodyOf(res: Response): Buffer {
  return (res.locals.rawBody as Buffer | undefined) ?? Buffer.alloc(0);
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

function isLoopbackHttpUrl(text: string): boolean {
  if (!/^http:\/\//i.test(text)) return false;
  try {
    const host = new URL(text).hostname.toLowerCase();
    return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  } catch {
    return false;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses the body (UTF-8, JSON) losslessly into res.locals.exactRequestBody; req.body gets what
 * the validator checks: the parsed value itself, or a Number copy when it holds a bigint. With
 * allowInsecureNotify, a top-level `notifyUrl` of http:// on a loopback host is shown to the
 * validator as https:// (so only the HTTPS rule is relaxed; format, length and everything else
 * still apply) and exactBodyAfterValidation restores it.
 */
export function parseJsonBody(options: { allowInsecureNotify: boolean }) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const raw = rawBodyOf(res);
    if (raw.length === 0) return next();
    let text: string;
    try {
      text = utf8.decode(raw);
    } catch {
      return next(signedError("VALIDATION_FAILED", "body is not valid UTF-8"));
    }
    let exact: unknown;
    try {
      exact = parseExactJson(text);
    } catch (error) {
      return next(signedError("VALIDATION_FAILED", `body is not valid JSON: ${(error as Error).message}`));
    }
    // Without a bigint the parsed value itself goes to the validator (which adds defaults to it).
    const copy = forValidator(exact);
    if (options.allowInsecureNotify && copy !== null && typeof copy === "object" && !Array.isArray(copy)) {
      const notifyUrl = (copy as Record<string, unknown>).notifyUrl;
      if (typeof notifyUrl === "string" && isLoopbackHttpUrl(notifyUrl)) {
        (copy as Record<string, unknown>).notifyUrl = `https://${notifyUrl.slice("http://".length)}`;
        res.locals.insecureNotifyUrl = notifyUrl;
      }
    }
    res.locals.exactRequestBody = exact;
    req.body = copy;
    next();
  };
}

/**
 * After validation: the body the handler uses (validated, with defaults, exact ids). The
 * validator's int64 format only checks "is an integer" (ajv-formats replaces
 * express-openapi-validator's range check), so the int64 range and exactness are checked here.
 */
export function exactBodyAfterValidation(req: Request, res: Response, next: NextFunction): void {
  if (!("exactRequestBody" in res.locals)) return next();
  const inexact = inexactIntegers(res.locals.exactRequestBody);
  if (inexact.length > 0) {
    const describe = ({ path, overflow }: { path: string; overflow: boolean }) =>
      overflow ? `body.${path} must be <= 9223372036854775807 (int64)` : `body.${path} must be written as plain decimal digits (above 2^53 a number in exponent or decimal notation cannot be read exactly)`;
    return next(signedError("VALIDATION_FAILED", inexact.map(describe).join("; ")));
  }
  const exact: unknown = res.locals.exactRequestBody;
  const body = (req.body === exact ? exact : mergeExact(req.body, exact)) as Record<string, unknown>;
  const insecure = res.locals.insecureNotifyUrl as string | undefined;
  if (insecure !== undefined && body && typeof body === "object") body.notifyUrl = insecure;
  res.locals.body = body;
  next();
}
