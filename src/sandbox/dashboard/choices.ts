// What the dashboard's forms offer, read once from the specs and the sandbox's apps, never kept
// as a list here: the operations a fault can meet (the signed and key-based specs'), the fault
// kinds and `when` values with their meanings and the bounds of each number (the control
// spec's CreateFaultRequest), the callback variants with what a correct receiver does with each
// (the control spec's CallbackVariant, the callbacks part's expectedAnswer). The page fetches
// this once (GET /sandbox/ui/choices); the state it polls stays small.
import { expectedAnswer, type CallbackVariant } from "../../callbacks/index.js";
import { schemasFor, type SpecName } from "../../contract/index.js";
import type { SandboxContext } from "../context.js";

interface Schema {
  enum?: unknown[];
  description?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  properties?: Record<string, Schema>;
  allOf?: { if?: Schema & { properties?: Record<string, Schema & { const?: unknown }> }; then?: Schema & { required?: string[] } }[];
  dependentSchemas?: Record<string, Schema>;
}

export interface Bounds {
  min: number | null;
  max: number | null;
  default: number | null;
}

export interface DashboardChoices {
  /** Every operation of the signed and key-based interfaces, in the specs' order. */
  operations: { operationId: string; interface: "signed" | "keyed"; method: string; path: string; summary: string | null }[];
  kinds: { value: string; meaning: string | null }[];
  whens: { value: string; meaning: string | null }[];
  /** The kinds that send Retry-After and so take retryAfterSeconds. */
  retryAfterKinds: string[];
  /** The kinds for which delayMs is required. */
  delayRequiredKinds: string[];
  bounds: { times: Bounds; delayMs: Bounds; retryAfterSeconds: Bounds; afterSeconds: Bounds };
  variants: { value: string; expected: "acknowledged" | "refused" }[];
  /** The apps of the sandbox's fixtures, for a fault's appKey. */
  apps: { appKey: string; name: string }[];
}

const controlSchema = (name: string): Schema =>
  ((schemasFor("sandbox-control").spec as { components?: { schemas?: Record<string, Schema> } }).components?.schemas?.[name] ?? {}) as Schema;

/**
 * "`slow` sends the operation's real answer `delayMs` late;" → "sends the operation's real
 * answer delayMs late": the meaning the description gives a value, or null.
 */
function meaningIn(description: string, value: string): string | null {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp("`" + escaped + "`(?: \\([^)]*\\))?:? ([^;]+?)(?:;|\\.(?=\\s|$))").exec(description);
  return match ? match[1]!.replace(/`/g, "").replace(/\s+/g, " ").trim() : null;
}

function described(name: string): { value: string; meaning: string | null }[] {
  const { enum: values = [], description = "" } = controlSchema(name);
  return values.map((value) => ({ value: String(value), meaning: meaningIn(description, String(value)) }));
}

const bounds = (schema: Schema | undefined): Bounds => ({
  min: typeof schema?.minimum === "number" ? schema.minimum : null,
  max: typeof schema?.maximum === "number" ? schema.maximum : null,
  default: typeof schema?.default === "number" ? schema.default : null,
});

function operationsOf(spec: SpecName & ("signed" | "keyed")): DashboardChoices["operations"] {
  return [...schemasFor(spec).operations.values()].map((location) => ({
    operationId: location.operationId,
    interface: spec,
    method: location.method,
    path: location.path,
    summary: typeof location.operation?.summary === "string" ? (location.operation.summary as string) : null,
  }));
}

let fromSpecs: Omit<DashboardChoices, "apps"> | undefined;

function specChoices(): Omit<DashboardChoices, "apps"> {
  if (fromSpecs) return fromSpecs;
  const request = controlSchema("CreateFaultRequest");
  const properties = request.properties ?? {};
  // The kinds whose `if` branch requires delayMs (`slow`), and those retryAfterSeconds depends on.
  const delayRequiredKinds = (request.allOf ?? [])
    .filter((branch) => branch.then?.required?.includes("delayMs"))
    .map((branch) => branch.if?.properties?.kind?.const)
    .filter((kind): kind is string => typeof kind === "string");
  const retryAfterKinds = (request.dependentSchemas?.retryAfterSeconds?.properties?.kind?.enum ?? []).map(String);
  const redeliver = controlSchema("RedeliverCallbackRequest").properties ?? {};
  fromSpecs = {
    operations: [...operationsOf("signed"), ...operationsOf("keyed")],
    kinds: described("FaultKind"),
    whens: described("FaultWhen"),
    retryAfterKinds,
    delayRequiredKinds,
    bounds: { times: bounds(properties.times), delayMs: bounds(properties.delayMs), retryAfterSeconds: bounds(properties.retryAfterSeconds), afterSeconds: bounds(redeliver.afterSeconds) },
    variants: (controlSchema("CallbackVariant").enum ?? []).map((value) => ({ value: String(value), expected: expectedAnswer(String(value) as CallbackVariant) })),
  };
  return fromSpecs;
}

export function dashboardChoices(ctx: SandboxContext): DashboardChoices {
  return { ...specChoices(), apps: ctx.records.apps().map((app) => ({ appKey: app.appKey, name: app.name })) };
}
