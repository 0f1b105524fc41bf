// Every check, in the order they are reported, each with the origin of its rule (origin.ts).
import type { Check, CheckDefinition } from "../check.js";
import { originOf } from "../origin.js";
import { callbackChecks } from "./callbacks.js";
import { clockChecks } from "./clock.js";
import { idempotencyChecks } from "./idempotency.js";
import { int64Checks } from "./int64.js";
import { keyedChecks } from "./keyed.js";
import { permissionChecks } from "./permissions.js";
import { responseChecks } from "./responses.js";
import { signatureChecks } from "./signature.js";
import { stateChecks } from "./state.js";
import { validationChecks } from "./validation.js";

const DEFINITIONS: readonly CheckDefinition[] = [
  ...clockChecks,
  ...responseChecks,
  ...signatureChecks,
  ...validationChecks,
  ...idempotencyChecks,
  ...stateChecks,
  ...permissionChecks,
  ...int64Checks,
  ...callbackChecks,
  ...keyedChecks,
];

export const ALL_CHECKS: readonly Check[] = DEFINITIONS.map((definition) => ({ ...definition, origin: originOf(definition.basis) }));
