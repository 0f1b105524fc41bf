// The X-Sandbox-Fault request header: a fault for this one request, without a control call
// (`X-Sandbox-Fault: internal-error;when=after`, `slow;delayMs=800`). Not signed (the
// signature covers the body only) and sandbox-only: it is in no public spec. Its parameters are
// CreateFaultRequest's own (minus what only a stored fault has) and it is validated against
// that schema of the control spec, so the header and createFault accept exactly the same.
import { schemasFor, type ErrorObject } from "../../contract/index.js";
import type { FaultBehaviour } from "./table.js";

export const FAULT_HEADER = "X-Sandbox-Fault";

const REQUEST_SCHEMA = "/components/schemas/CreateFaultRequest";
/** Fields of a stored fault that make no sense for one request. */
const NOT_IN_HEADER = new Set(["operationId", "kind", "times", "appKey"]);

let parameterNames: string[] | undefined;

/** The header's parameter names: CreateFaultRequest's properties that describe one request's fault. */
function headerParameters(): string[] {
  parameterNames ??= Object.keys(schemasFor("sandbox-control").spec.components?.schemas?.CreateFaultRequest?.properties ?? {}).filter((name) => !NOT_IN_HEADER.has(name));
  return parameterNames;
}

/** One schema error in the header's words: "delayMs must be >= 1", "retryAfterSeconds is only for kind rate-limited, unavailable". */
function readable(error: ErrorObject): string | undefined {
  // The if/then wrapper: its specific error is reported on its own.
  if (error.keyword === "if") return undefined;
  const dependent = /^#\/dependentSchemas\/([A-Za-z]+)\/properties\/kind\/enum$/.exec(error.schemaPath);
  if (dependent) return `${dependent[1]} is only for kind ${(error.params as { allowedValues: string[] }).allowedValues.join(", ")}`;
  if (error.keyword === "required") return `${(error.params as { missingProperty: string }).missingProperty} is required for this kind`;
  const where = error.instancePath.replace(/^\//, "");
  const extra = error.keyword === "enum" ? `: ${(error.params as { allowedValues: string[] }).allowedValues.join(", ")}` : "";
  return `${where} ${error.message ?? "is invalid"}${extra}`;
}

/**
 * The fault a header value asks for, or the reason it cannot be read (for a 100009 naming the
 * header). `operationId` is the operation the request reaches (checked by the schema like a
 * createFault body's).
 */
export function parseFaultHeader(value: string, operationId: string): { ok: true; behaviour: FaultBehaviour } | { ok: false; reason: string } {
  const [kindPart = "", ...parts] = value.split(";").map((part) => part.trim());
  const request: Record<string, unknown> = { operationId, kind: kindPart };
  for (const part of parts) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(part);
    if (!match) return { ok: false, reason: `${FAULT_HEADER}: ${JSON.stringify(part.slice(0, 40))} is not name=value (the form is kind;name=value;…, e.g. internal-error;when=after)` };
    const [, name = "", text = ""] = match;
    if (!headerParameters().includes(name)) return { ok: false, reason: `${FAULT_HEADER}: unknown parameter ${JSON.stringify(name.slice(0, 40))}; the parameters are ${headerParameters().join(", ")}` };
    if (Object.hasOwn(request, name)) return { ok: false, reason: `${FAULT_HEADER}: ${name} is given twice` };
    request[name] = /^[0-9]{1,15}$/.test(text) ? Number(text) : text;
  }
  const validate = schemasFor("sandbox-control").validator(REQUEST_SCHEMA);
  const problems = validate(request) ? [] : (validate.errors ?? []).flatMap((error) => readable(error) ?? []);
  if (problems.length > 0) return { ok: false, reason: `${FAULT_HEADER}: ${problems.join("; ")} (got ${JSON.stringify(value.slice(0, 120))})` };
  return {
    ok: true,
    behaviour: {
      kind: request.kind as FaultBehaviour["kind"],
      when: (request.when as FaultBehaviour["when"] | undefined) ?? "before",
      delayMs: (request.delayMs as number | undefined) ?? null,
      retryAfterSeconds: (request.retryAfterSeconds as number | undefined) ?? null,
    },
  };
}
