// Response validation for express-openapi-validator (EOV): ResponseValidator's own munger logic
// and its private _getOrBuildValidator and _validate, as one call the kit's answer writer makes
// with the answer it is about to write (no res.json hook), reusing the request step's parse of the
// request's Content-Type for the validator cache key. _validate's choice of Ajv validator (by
// status, then findResponseContent over the accepted types, then canValidateContentType) depends on
// nothing else, so it is made once per status and header and the chosen validator then runs
// alone, with _validate's error built as it builds it (ajvBody.errorsText); every answer it would
// not validate plainly (no schema for the status, no content, a null body, a type it cannot
// validate) still goes to _validate. Goes when EOV exposes a per-answer validation call (no
// upstream issue found).
import type { Response } from "express";
import type { AnswerCheck, ResponseValidationFailure } from "../state.js";
import { contentTypeOf, validatorKey } from "./content-type.js";
import { answerValidationError, findResponseContent, InternalServerError, openApiMetadataOf, type AjvValidate, type ResponseValidatorInternals } from "./internals.js";

/** The Ajv validator _validate would run for one status and one list of accepted types, or "eov" for anything but that plain case. */
type AnswerPlan = AjvValidate | "eov";
const ANSWER_PLAN_LIMIT = 64;
const ANSWER_PLAN_KEY_CHARS = 256;

/**
 * The choice ResponseValidator._validate makes before it validates: the status's validators
 * (exact, then 2XX-style, then default), the content type (findResponseContent over the
 * accepted types, else the first declared), and whether that type is JSON. Every case where
 * _validate would answer without validating (no schema for the status, no content declared,
 * a type it cannot validate) is "eov", and _validate itself then runs.
 */
function planAnswer(eov: ResponseValidatorInternals, validators: unknown, status: number, accepts: string[]): AnswerPlan {
  const byStatus = validators as Record<string, Record<string, AjvValidate> | undefined>;
  const code = String(status);
  const chosen = Object.hasOwn(byStatus, code) ? byStatus[code] : Object.hasOwn(byStatus, `${code[0]}XX`) ? byStatus[`${code[0]}XX`] : byStatus.default;
  if (!chosen) return "eov";
  const types = Object.keys(chosen);
  const type = findResponseContent(accepts, types) || types[0];
  const validator = type === undefined ? undefined : chosen[type];
  if (type === undefined || typeof validator !== "function") return "eov";
  try {
    if (!eov.canValidateContentType(type)) return "eov";
  } catch {
    // _validate validates when the type cannot be parsed.
  }
  return validator;
}

/**
 * EOV's response validation (ResponseValidator.validate()'s munger) as one call the answer
 * writer makes with the answer it is about to write: the verdict, undefined when the answer
 * fits its schema. An unexpected throw of the check itself is thrown on.
 */
export function responseCheck(eov: ResponseValidatorInternals): AnswerCheck {
  const answerPlans = new WeakMap<object, Map<string, AnswerPlan>>();

  return (res: Response, status: number, body: unknown): ResponseValidationFailure | undefined => {
    const req = res.req;
    const openapi = openApiMetadataOf(req);
    if (!openapi || eov.serial != openapi.serial) return undefined;
    // ResponseValidator._getOrBuildValidator, with the request's Content-Type parsed once.
    const key = validatorKey(req, openapi, contentTypeOf(req));
    let validators = eov.validatorsCache[key];
    if (!validators) {
      validators = eov.buildValidators((openapi._responseSchema as { responses?: unknown } | undefined)?.responses, key);
      eov.validatorsCache[key] = validators;
    }
    const contentType = res.getHeader("content-type");
    const accept = req.headers.accept;
    const accepts = (): string[] => (contentType ? [contentType as string] : accept ? accept.split(",").map((type) => type.trim()) : []);
    try {
      // _validate's choice of validator depends only on the status and the accepted types:
      // made once per validators, status and header, then the chosen Ajv validator runs alone.
      let plans = answerPlans.get(validators as object);
      if (!plans) answerPlans.set(validators as object, (plans = new Map()));
      const planKey = `${status} ${contentType ? `type ${String(contentType)}` : `accept ${accept ?? ""}`}`;
      let plan = plans.get(planKey);
      if (plan === undefined) {
        plan = planAnswer(eov, validators, status, accepts());
        // Bounded: at most 64 keys per operation's validators, each of a short header.
        if (plans.size < ANSWER_PLAN_LIMIT && planKey.length <= ANSWER_PLAN_KEY_CHARS) plans.set(planKey, plan);
      }
      if (plan === "eov" || body === undefined || body === null) {
        eov._validate({ validators, body, statusCode: status, path: req.originalUrl, accepts: accepts() });
      } else if (!plan({ response: body })) {
        // The error _validate throws, built as it builds it.
        return answerValidationError(eov, req.originalUrl, plan.errors ?? []);
      }
    } catch (error) {
      if (error instanceof InternalServerError) return error;
      throw error;
    }
    return undefined;
  };
}

