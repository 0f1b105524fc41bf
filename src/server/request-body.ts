// From the raw bytes to the handler's body, one step around the validator, with its state in
// local variables rather than res.locals:
//   lossless parse (100009 naming the position) → a Number copy for the validator when the
//   body holds a bigint (Ajv's `integer` refuses bigint) → express-openapi-validator (routing,
//   request rules, defaults) → the int64 range and exactness → the validated copy with the
//   exact bigints merged back → state.body.
// With allowInsecureNotify, a top-level `notifyUrl` of http:// on a loopback host is shown to the
// validator as https:// (only the HTTPS rule is relaxed; format and length still apply) and
// given to the handler as sent.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { rawBodyOf } from "./body.js";
import { signedError } from "./errors.js";
import { forValidator, inexactIntegers, mergeExact, parseExactJson, type InexactInteger } from "./int64.js";
import { requestState } from "./state.js";

export interface RequestBodyOptions {
  /** Accept http:// notifyUrls on loopback hosts (a local sandbox's callbacks). Default false. */
  allowInsecureNotify?: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function isLoopbackHttpUrl(text: string): boolean {
  if (!/^http:\/\//i.test(text)) return false;
  try {
    const host = new URL(text).hostname.toLowerCase();
    return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What the request sent, parsed: the exact value, and the copy the validator checks and fills with defaults. */
interface ParsedBody {
  exact: unknown;
  copy: unknown;
  /** The loopback http:// notifyUrl shown to the validator as https://. */
  insecureNotifyUrl?: string;
  /** A loopback http:// notifyUrl sent while they are not allowed: its refusal names the switch. */
  refusedLoopbackNotify?: boolean;
}

function parseBody(raw: Buffer, options: RequestBodyOptions): ParsedBody {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw signedError("VALIDATION_FAILED", "body is not valid UTF-8");
  }
  let exact: unknown;
  try {
    exact = parseExactJson(text);
  } catch (error) {
    throw signedError("VALIDATION_FAILED", `body is not valid JSON: ${(error as Error).message}`);
  }
  // Without a bigint the parsed value itself goes to the validator (which adds defaults to it).
  const copy = forValidator(exact);
  if (options.allowInsecureNotify === true && isRecord(copy) && typeof copy.notifyUrl === "string" && isLoopbackHttpUrl(copy.notifyUrl)) {
    const insecureNotifyUrl = copy.notifyUrl;
    copy.notifyUrl = `https://${insecureNotifyUrl.slice("http://".length)}`;
    return { exact, copy, insecureNotifyUrl };
  }
  if (isRecord(copy) && typeof copy.notifyUrl === "string" && isLoopbackHttpUrl(copy.notifyUrl)) return { exact, copy, refusedLoopbackNotify: true };
  return { exact, copy };
}

/**
 * The validator's "must match pattern" for an http:// notifyUrl on a loopback host says what a
 * developer testing locally needs instead: HTTPS is the rule, and how a local server relaxes it.
 */
function explainLoopbackNotify(error: unknown): void {
  const errors = (error as { errors?: { path?: string; message?: string }[] } | null)?.errors;
  for (const item of Array.isArray(errors) ? errors : []) {
    if (item.path === "/body/notifyUrl" && /pattern/.test(item.message ?? "")) {
      item.message =
        "must be an https:// URL (the contract's rule); http:// on a loopback host is accepted only where the server allows it for local testing: start the sandbox with --allow-insecure-notify (server kit: the allowInsecureNotify option)";
    }
  }
}

const describeInexact = ({ path, overflow }: InexactInteger): string =>
  overflow ? `body.${path} must be <= 9223372036854775807 (int64)` : `body.${path} must be written as plain decimal digits (above 2^53 a number in exponent or decimal notation cannot be read exactly)`;

/**
 * The validated copy (with defaults) and the exact ids. The validator's int64 format only checks
 * "is an integer" (ajv-formats replaces express-openapi-validator's range check), so the int64
 * range and exactness are checked here.
 */
function exactBody(validated: unknown, parsed: ParsedBody): unknown {
  const inexact = inexactIntegers(parsed.exact);
  if (inexact.length > 0) throw signedError("VALIDATION_FAILED", inexact.map(describeInexact).join("; "));
  const body = validated === parsed.exact ? parsed.exact : mergeExact(validated, parsed.exact);
  if (parsed.insecureNotifyUrl !== undefined && isRecord(body)) body.notifyUrl = parsed.insecureNotifyUrl;
  return body;
}

/** Parses, validates (through `validate`, express-openapi-validator's step) and stores the handler's body in state.body. */
export function validatedRequestBody(validate: RequestHandler, options: RequestBodyOptions = {}): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const raw = rawBodyOf(res);
    let parsed: ParsedBody | undefined;
    if (raw.length > 0) {
      try {
        parsed = parseBody(raw, options);
      } catch (error) {
        return next(error);
      }
      req.body = parsed.copy;
    }
    validate(req, res, (error?: unknown) => {
      if (error && parsed?.refusedLoopbackNotify === true) explainLoopbackNotify(error);
      if (error || parsed === undefined) return next(error);
      try {
        requestState(res).body = exactBody(req.body, parsed);
      } catch (thrown) {
        return next(thrown);
      }
      next();
    });
  };
}
