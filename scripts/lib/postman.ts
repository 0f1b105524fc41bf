// The Postman collection (format v2.1) and its sandbox environment, built from the bundled specs:
// one request per operation of the signed and key-based interfaces, grouped by tag, plus the
// folder "Pay an order" that walks the payment flow against the sandbox. Signing and the
// envelope checks are collection-level scripts (postman-scripts.ts).
import { collectionTestScript, flowTestScript, preRequestScript, type AuthFailureCodes, type FlowExpectation } from "./postman-scripts.js";

type JsonObject = Record<string, unknown>;

export interface PostmanInputs {
  signed: JsonObject;
  keyed: JsonObject;
  control: JsonObject;
  /** Demo credentials and the merchant the flow uses (from the sandbox's default fixtures). */
  sandbox: { appKey: string; appSecret: string; apiKey: string; merchantId: string };
  authFailureCodes: AuthFailureCodes;
}

const SCHEMA = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json";
const METHODS = ["get", "put", "post", "delete", "patch"];
/** Environment variables; everything else a request needs is a collection variable. */
const ENVIRONMENT_KEYS = ["baseUrl", "appKey", "appSecret", "merchantId", "apiKey"] as const;

interface Operation {
  method: string;
  path: string;
  operation: JsonObject;
}

interface PostmanRequestItem {
  name: string;
  request: JsonObject;
  event?: JsonObject[];
  response: [];
}

function operations(spec: JsonObject): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const [path, item] of Object.entries(spec.paths as Record<string, JsonObject>)) {
    for (const method of METHODS) {
      const operation = item[method] as JsonObject | undefined;
      if (operation && typeof operation.operationId === "string") found.set(operation.operationId, { method: method.toUpperCase(), path, operation });
    }
  }
  return found;
}

function resolve(spec: JsonObject, node: unknown): JsonObject {
  let current = node as JsonObject;
  while (current && typeof current.$ref === "string") {
    current = (current.$ref as string)
      .replace(/^#\//, "")
      .split("/")
      .reduce<JsonObject>((acc, key) => acc[key.replace(/~1/g, "/").replace(/~0/g, "~")] as JsonObject, spec);
  }
  return current;
}

/** The server URL's path: "/open-api/v1" of "http://127.0.0.1:4010/open-api/v1". */
function basePath(spec: JsonObject): string {
  const [server] = spec.servers as Array<{ url: string }>;
  return new URL(server!.url).pathname.replace(/\/$/, "");
}

/** The first value the spec's examples (parameters, bodies, answers) give a field of this name. */
function exampleValues(...specs: JsonObject[]): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const visit = (node: unknown, inExample: boolean) => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, inExample);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (inExample && (typeof value === "number" || typeof value === "string") && !values.has(key)) values.set(key, value);
      visit(value, inExample || key === "examples" || key === "example");
    }
  };
  for (const spec of specs) visit(spec.paths, false);
  return values;
}

function jsonBodyExample(spec: JsonObject, operation: JsonObject): unknown {
  const body = resolve(spec, operation.requestBody);
  const media = (body?.content as Record<string, JsonObject> | undefined)?.["application/json"];
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values((media.examples ?? {}) as Record<string, JsonObject>)[0];
  return first ? resolve(spec, first).value : undefined;
}

/** Compact JSON with the top-level fields that are variables written as {{variable}} (raw, unquoted for numbers). */
function bodyText(example: unknown, variables: ReadonlySet<string>): string {
  if (typeof example !== "object" || example === null || Array.isArray(example)) return JSON.stringify(example);
  const parts = Object.entries(example).map(([key, value]) => {
    const text = variables.has(key) ? (typeof value === "string" ? `"{{${key}}}"` : `{{${key}}}`) : JSON.stringify(value);
    return `${JSON.stringify(key)}:${text}`;
  });
  return `{${parts.join(",")}}`;
}

interface RequestShape {
  name: string;
  description: string;
  method: string;
  /** Path under {{baseUrl}}, with {param} placeholders. */
  path: string;
  parameters: JsonObject[];
  body?: string;
  contentType: boolean;
  tests?: string[];
}

function requestItem(shape: RequestShape, variables: Map<string, string>): PostmanRequestItem {
  const segments = shape.path.replace(/^\//, "").split("/").map((segment) => segment.replace(/^\{(.+)\}$/, ":$1"));
  const pathParams = shape.parameters.filter((p) => p.in === "path");
  const query = shape.parameters
    .filter((p) => p.in === "query")
    .map((p) => {
      const name = String(p.name);
      const known = variables.has(name);
      const entry: JsonObject = { key: name, value: known ? `{{${name}}}` : defaultOf(p) };
      if (typeof p.description === "string") entry.description = p.description;
      if (!p.required) entry.disabled = true;
      return entry;
    });
  const enabledQuery = query.filter((q) => !q.disabled).map((q) => `${String(q.key)}=${String(q.value)}`);
  const url: JsonObject = {
    raw: `{{baseUrl}}/${segments.join("/")}${enabledQuery.length > 0 ? `?${enabledQuery.join("&")}` : ""}`,
    host: ["{{baseUrl}}"],
    path: segments,
  };
  if (query.length > 0) url.query = query;
  if (pathParams.length > 0) {
    url.variable = pathParams.map((p) => {
      const entry: JsonObject = { key: String(p.name), value: `{{${String(p.name)}}}` };
      if (typeof p.description === "string") entry.description = p.description;
      return entry;
    });
  }
  const request: JsonObject = {
    method: shape.method,
    header: shape.contentType ? [{ key: "Content-Type", value: "application/json" }] : [],
    url,
    description: shape.description,
  };
  if (shape.body !== undefined) request.body = { mode: "raw", raw: shape.body, options: { raw: { language: "json" } } };
  const item: PostmanRequestItem = { name: shape.name, request, response: [] };
  if (shape.tests) item.event = [{ listen: "test", script: { type: "text/javascript", exec: shape.tests } }];
  return item;
}

function defaultOf(parameter: JsonObject): string {
  const schema = (parameter.schema ?? {}) as JsonObject;
  const value = parameter.example ?? schema.default ?? schema.example ?? (Array.isArray(schema.enum) ? schema.enum[0] : "");
  return String(value);
}

function operationRequest(spec: JsonObject, found: Operation, interfaceName: string, variables: Map<string, string>, tests?: string[], body?: string): PostmanRequestItem {
  const { operation } = found;
  const operationId = String(operation.operationId);
  const parameters = ((operation.parameters ?? []) as unknown[]).map((p) => resolve(spec, p));
  const example = jsonBodyExample(spec, operation);
  const fullPath = basePath(spec) + found.path;
  const description = [`\`${operationId}\` · ${found.method} ${fullPath} (${interfaceName})`, typeof operation.description === "string" ? operation.description.trim() : ""]
    .filter(Boolean)
    .join("\n\n");
  const text = body ?? (example === undefined ? undefined : bodyText(example, new Set(variables.keys())));
  return requestItem(
    { name: String(operation.summary ?? operationId), description, method: found.method, path: fullPath, parameters, body: text, contentType: text !== undefined, tests },
    variables,
  );
}

/** The steps of "Pay an order": operationId, the body when the flow needs its own, and what it checks. */
interface FlowStep {
  spec: "signed" | "control";
  operationId: string;
  name?: string;
  body?: Record<string, string>;
  expect: Omit<FlowExpectation, "successCode">;
}

/**
 * Bodies are written as JSON text with {{variables}}: ids go in as their digits, never through a
 * JavaScript number. The item name has Chinese text and an emoji: signing covers UTF-8 bytes.
 */
const FLOW: FlowStep[] = [
  { spec: "signed", operationId: "syncCustomer", body: { openUserId: '"postman-user-4711"', nickname: '"Postman"' }, expect: { captureIntegers: { appUserId: "appUserId" } } },
  {
    spec: "signed",
    operationId: "createOrder",
    body: {
      merchantId: "{{merchantId}}",
      userId: "{{appUserId}}",
      orderType: "1",
      items: '[{"itemType":1,"itemId":30001,"itemName":"拿铁 Latte ☕","price":2800,"quantity":2}]',
    },
    expect: { captureIntegers: { orderId: "data" } },
  },
  { spec: "signed", operationId: "getOrder", expect: { sameIntegers: { id: "orderId" }, dataEquals: { status: 0, totalAmount: 5600 } } },
  {
    spec: "signed",
    operationId: "payOrder",
    body: { merchantId: "{{merchantId}}", notifyUrl: '"{{notifyUrl}}"' },
    expect: { captureStrings: { tradeNo: "tradeNo" }, sameIntegers: { orderId: "orderId" } },
  },
  { spec: "control", operationId: "payTrade", name: "Pay the trade (sandbox control API, as the buyer)", expect: { dataEquals: {} } },
  { spec: "signed", operationId: "queryPayment", expect: { dataEquals: { tradeStatus: "SUCCESS", totalAmount: 5600 } } },
  { spec: "signed", operationId: "getOrder", name: "Get order detail: paid", expect: { sameIntegers: { id: "orderId" }, dataEquals: { status: 1 } } },
];

const FLOW_DESCRIPTION = `The payment flow against the sandbox: syncCustomer → createOrder → getOrder → payOrder → the
trade paid through the sandbox's control API (as the buyer would at the cashier) → queryPayment
SUCCESS → the order reads back paid. Each step keeps the ids it needs in collection variables
(appUserId, orderId, tradeNo), read from the response text as digits: the sandbox's order ids are
above 2^53, and pm.response.json() would round them. Run it with the Collection Runner, or
\`npx newman run\` (docs/other-languages.md).`;

export function postmanCollection(inputs: PostmanInputs): JsonObject {
  const specs = { signed: inputs.signed, keyed: inputs.keyed, control: inputs.control };
  const found = { signed: operations(inputs.signed), keyed: operations(inputs.keyed), control: operations(inputs.control) };
  const examples = exampleValues(inputs.signed, inputs.keyed);

  // Collection variables: the flow's ids and every path or query parameter of a request; each
  // starts at the first value the spec's examples give it.
  const variables = new Map<string, string>();
  for (const key of ENVIRONMENT_KEYS) variables.set(key, "");
  const collectionVariables = new Map<string, string>([
    ["appUserId", String(examples.get("appUserId") ?? "")],
    ["notifyUrl", "https://app.example.com/mop/notify"],
  ]);
  for (const spec of ["signed", "keyed"] as const) {
    for (const { operation } of found[spec].values()) {
      for (const parameter of ((operation.parameters ?? []) as unknown[]).map((p) => resolve(specs[spec], p))) {
        const name = String(parameter.name);
        if (parameter.in !== "path" && !(parameter.in === "query" && parameter.required)) continue;
        if (variables.has(name) || collectionVariables.has(name)) continue;
        collectionVariables.set(name, String(parameter.example ?? examples.get(name) ?? ""));
      }
    }
  }
  for (const key of collectionVariables.keys()) variables.set(key, "");

  const flowItems = FLOW.map((step) => {
    const operation = found[step.spec].get(step.operationId);
    if (!operation) throw new Error(`the ${step.spec} spec has no operation ${step.operationId}`);
    const body = step.body ? `{${Object.entries(step.body).map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}` : undefined;
    const tests = flowTestScript({ successCode: 0, ...step.expect });
    const item = operationRequest(specs[step.spec], operation, step.spec === "control" ? "sandbox control API, no signature" : "signed interface", variables, tests, body);
    if (step.name) item.name = step.name;
    // The control API takes JSON: a POST says so even without a body.
    if (step.spec === "control" && operation.method === "POST") (item.request.header as JsonObject[]).push({ key: "Content-Type", value: "application/json" });
    return item;
  });

  const byTag = (spec: "signed" | "keyed", interfaceName: string) => {
    const tags = ((specs[spec].tags ?? []) as Array<{ name: string; description?: string }>).map((tag) => tag.name);
    const folders = new Map<string, PostmanRequestItem[]>();
    for (const operation of found[spec].values()) {
      const tag = ((operation.operation.tags ?? []) as string[])[0] ?? "Other";
      folders.set(tag, [...(folders.get(tag) ?? []), operationRequest(specs[spec], operation, interfaceName, variables)]);
    }
    return [...folders].sort(([a], [b]) => tags.indexOf(a) - tags.indexOf(b)).map(([name, item]) => ({ name, item }));
  };

  const signedInfo = inputs.signed.info as JsonObject;
  return {
    info: {
      name: "Merchant Open Platform",
      description: `Every operation of the signed interface (/open-api/v1) and the key-based interface (/v1), generated from the contract (version ${String(signedInfo.version)}), and the folder "Pay an order".

Import it together with the environment sandbox.postman_environment.json (baseUrl, appKey, appSecret, merchantId, apiKey), or set those variables yourself. The collection's pre-request script signs every request of the signed interface (X-App-Key, X-Timestamp, X-Nonce, X-Sign over the exact body sent) and sends the API key as a Bearer token on /v1. Its test script checks that every answer is the interface's envelope and that the signature or key was accepted.

Ids: order ids can be above 2^53. Never read an id through pm.response.json() (JSON.parse rounds it); the folder's scripts read ids from pm.response.text(). See docs/other-languages.md and docs/ids-and-int64.md.`,
      schema: SCHEMA,
    },
    event: [
      { listen: "prerequest", script: { type: "text/javascript", exec: preRequestScript() } },
      { listen: "test", script: { type: "text/javascript", exec: collectionTestScript(inputs.authFailureCodes) } },
    ],
    variable: [...collectionVariables].map(([key, value]) => ({ key, value, type: "string" })),
    item: [
      { name: "Pay an order", description: FLOW_DESCRIPTION, item: flowItems },
      { name: "Signed interface", description: `The signed open interface, ${basePath(inputs.signed)}: every request is signed by the collection's pre-request script.`, item: byTag("signed", "signed interface") },
      { name: "Key-based interface", description: `The key-based interface, ${basePath(inputs.keyed)}: Authorization: Bearer {{apiKey}}.`, item: byTag("keyed", "key-based interface").flatMap((folder) => folder.item) },
    ],
  };
}

export function postmanEnvironment(inputs: PostmanInputs): JsonObject {
  const control = (inputs.control.servers as Array<{ url: string }>)[0]!.url;
  const values: Record<(typeof ENVIRONMENT_KEYS)[number], [string, "default" | "secret"]> = {
    baseUrl: [new URL(control).origin, "default"],
    appKey: [inputs.sandbox.appKey, "default"],
    appSecret: [inputs.sandbox.appSecret, "secret"],
    merchantId: [inputs.sandbox.merchantId, "default"],
    apiKey: [inputs.sandbox.apiKey, "secret"],
  };
  return {
    id: "6d6f702d-7361-6e64-626f-782d656e7631",
    name: "Merchant Open Platform sandbox",
    values: ENVIRONMENT_KEYS.map((key) => ({ key, value: values[key][0], type: values[key][1], enabled: true })),
    _postman_variable_scope: "environment",
  };
}
