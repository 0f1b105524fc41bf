// From the raw bytes and URL to the handler's input, one step around the validator, each
// conversion made once:
//   UTF-8 → lossless JSON parse (100009 naming the position; an integer beyond 2^53 is a bigint,
//   shown to the validator as its nearest number) → express-openapi-validator (routing, request
//   rules, defaults, in place) → the spec's int64 fields of the body, path and query as bigint,
//   from the exact parse and the URL's text, with the int64 range checked → state.body, .query, .path.
// With allowInsecureNotify, a top-level `notifyUrl` of http:// on a loopback host is shown to the
// validator as https:// (only the HTTPS rule is relaxed; format and length still apply) and
// given to the handler as sent.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { bigIntsToNumbers, parseIdText, parseJsonLossless, readInt64Fields, type ExactIntegers, type InexactInteger } from "../json/index.js";
import { rawBodyOf } from "./body.js";
import { signedError } from "./errors.js";
import { requestInt64Fields, type RequestInt64Fields } from "./int64-fields.js";
import { requestState, type RequestState } from "./state.js";

export interface RequestStepOptions {
  /** Accept http:// notifyUrls on loopback hosts (a local sandbox's callbacks). Default false. */
  allowInsecureNotify?: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
// An integer a double cannot hold exactly has at least 16 digits: text without such a run parses to numbers only.
const SIXTEEN_DIGITS = /[0-9]{16}/;

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

/** What the request sent, parsed: the value the validator checks (and fills with defaults) in place. */
interface ParsedBody {
  value: unknown;
  /** The originals of the integers beyond 2^53 the validator sees as numbers. */
  exact?: ExactIntegers;
  /** The loopback http:// notifyUrl shown to the validator as https://. */
  insecureNotifyUrl?: string;
  /** A loopback http:// notifyUrl sent while they are not allowed: its refusal names the switch. */
  refusedLoopbackNotify?: boolean;
}

function parseBody(raw: Buffer, options: RequestStepOptions): ParsedBody {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw signedError("VALIDATION_FAILED", "body is not valid UTF-8");
  }
  let value: unknown;
  try {
    value = parseJsonLossless(text);
  } catch (error) {
    throw signedError("VALIDATION_FAILED", `body is not valid JSON: ${(error as Error).message}`);
  }
  const parsed: ParsedBody = { value };
  if (SIXTEEN_DIGITS.test(text)) parsed.exact = bigIntsToNumbers(value);
  if (isRecord(value) && typeof value.notifyUrl === "string" && isLoopbackHttpUrl(value.notifyUrl)) {
    if (options.allowInsecureNotify === true) {
      parsed.insecureNotifyUrl = value.notifyUrl;
      value.notifyUrl = `https://${value.notifyUrl.slice("http://".length)}`;
    } else parsed.refusedLoopbackNotify = true;
  }
  return parsed;
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
 * The validated body with its int64 fields as bigint. The validator's int64 format only checks
 * "is an integer" (ajv-formats replaces express-openapi-validator's range check), so the int64
 * range and exactness are checked here, field by field.
 */
function exactBody(validated: unknown, parsed: ParsedBody, fields: RequestInt64Fields | undefined): unknown {
  let body = validated;
  if (fields?.body) {
    const problems: InexactInteger[] = [];
    body = readInt64Fields(validated, fields.body, problems, parsed.exact);
    if (problems.length > 0) throw signedError("VALIDATION_FAILED", problems.map(describeInexact).join("; "));
  }
  if (parsed.insecureNotifyUrl !== undefined && isRecord(body)) body.notifyUrl = parsed.insecureNotifyUrl;
  return body;
}

function readId(location: "path" | "query", name: string, text: string): bigint {
  const value = parseIdText(text);
  if (typeof value === "string") throw signedError("VALIDATION_FAILED", `${location}.${name} ${value}`);
  return value;
}

/**
 * The raw text of a query parameter, as URLSearchParams.get reads it (the first occurrence,
 * "+" as a space, percent-decoding). A query without "+" or "%" is read as is, without building
 * the whole URLSearchParams.
 */
function rawQueryValue(rawQuery: string, name: string): string | null {
  if (rawQuery.includes("+") || rawQuery.includes("%")) return new URLSearchParams(rawQuery).get(name);
  for (const pair of rawQuery.split("&")) {
    const at = pair.indexOf("=");
    if ((at < 0 ? pair : pair.slice(0, at)) === name) return at < 0 ? "" : pair.slice(at + 1);
  }
  return null;
}

/** The validated (and coerced) path and query values, their int64 ids exact from the URL's text. */
function exactParameters(req: Request, state: RequestState, fields: RequestInt64Fields | undefined): void {
  const path: Record<string, unknown> = { ...req.params };
  for (const name of fields?.path ?? []) {
    const text = state.pathText?.[name];
    if (text !== undefined) path[name] = readId("path", name, text);
  }
  const query: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
  if (fields !== undefined && fields.query.length > 0) {
    const at = req.originalUrl.indexOf("?");
    const rawQuery = at < 0 ? "" : req.originalUrl.slice(at + 1);
    for (const name of fields.query) {
      const text = rawQueryValue(rawQuery, name);
      if (text !== null) query[name] = readId("query", name, text);
    }
  }
  state.path = path;
  state.query = query;
}

/** Parses, validates (through `validate`, express-openapi-validator's step) and stores the handler's body, query and path in the state. */
export function validatedRequest(validate: RequestHandler, options: RequestStepOptions = {}): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const raw = rawBodyOf(res);
    let parsed: ParsedBody | undefined;
    if (raw.length > 0) {
      try {
        parsed = parseBody(raw, options);
      } catch (error) {
        return next(error);
      }
      req.body = parsed.value;
    }
    validate(req, res, (error?: unknown) => {
      if (error && parsed?.refusedLoopbackNotify === true) explainLoopbackNotify(error);
      if (error) return next(error);
      const state = requestState(res);
      // Not routed (an ignored path): nothing to convert.
      if (state.operationId === undefined || state.spec === undefined) return next();
      try {
        const fields = requestInt64Fields(state.spec, state.operationId);
        exactParameters(req, state, fields);
        if (parsed !== undefined) state.body = exactBody(req.body, parsed, fields);
      } catch (thrown) {
        return next(thrown);
      }
      next();
    });
  };
}
