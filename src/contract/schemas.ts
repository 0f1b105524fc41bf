// One spec's operations, parameters, webhooks and schemas, and JSON Schema validation of any
// value against any schema inside it. The spec is registered whole with Ajv, so its internal
// "#/components/..." references resolve; validators are compiled once per pointer.
import type { ValidateFunction } from "ajv/dist/2020.js";
import { withBigIntsAsNumbers } from "../json/index.js";
import { createAjv, describeSchemaError } from "./ajv.js";
import { loadBundle, type OpenApiDocument, type SpecName } from "./bundles.js";
import { atPointer, escapePointer, resolvePointer } from "./pointer.js";

export interface OperationLocation {
  operationId: string;
  /** Upper case: "GET", "POST". */
  method: string;
  /** The path template as the spec writes it, e.g. "/stores/{storeId}". */
  path: string;
  /** Pointer of the operation object, e.g. "/paths/~1stores/get". */
  pointer: string;
  operation: any;
}

export interface OperationParameter {
  name: string;
  in: string;
  required?: boolean;
  schemaPointer: string;
  schema: any;
}

export interface WebhookLocation {
  /** The webhook's key in the spec, e.g. "paymentSucceeded". */
  name: string;
  /** The payload's `type` constant, e.g. "payment.succeeded". */
  eventType: string;
  /** Pointer of the payload schema. */
  pointer: string;
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

export class SpecSchemas {
  readonly operations = new Map<string, OperationLocation>();
  private readonly ajv = createAjv();
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly parameterLists = new Map<string, OperationParameter[]>();
  private webhookList: WebhookLocation[] | undefined;
  private readonly id: string;

  constructor(readonly spec: OpenApiDocument, name: string) {
    this.id = `https://merchant-open-platform.local/${name}.json`;
    this.ajv.addSchema({ ...spec, $id: this.id, $schema: undefined }, undefined, undefined, false);
    for (const [path, item] of Object.entries<any>(spec.paths ?? {})) {
      for (const [method, operation] of Object.entries<any>(item ?? {})) {
        if (HTTP_METHODS.has(method) && typeof operation?.operationId === "string") {
          this.operations.set(operation.operationId, { operationId: operation.operationId, method: method.toUpperCase(), path, pointer: `/paths/${escapePointer(path)}/${method}`, operation });
        }
      }
    }
  }

  operation(operationId: string): OperationLocation {
    const found = this.operations.get(operationId);
    if (!found) throw new Error(`the spec has no operation ${operationId}`);
    return found;
  }

  /** Path-item and operation parameters (the operation's win), each with its schema's pointer. */
  parameters(operationId: string): OperationParameter[] {
    let found = this.parameterLists.get(operationId);
    if (!found) {
      found = readParameters(this.spec, this.operation(operationId).pointer);
      this.parameterLists.set(operationId, found);
    }
    return found;
  }

  /** Pointer of the JSON schema of the operation's request body; undefined when it takes none. */
  requestBodySchemaPointer(operationId: string): string | undefined {
    const { pointer, node } = resolvePointer(this.spec, `${this.operation(operationId).pointer}/requestBody`);
    if (!node?.content?.["application/json"]?.schema) return undefined;
    return resolvePointer(this.spec, `${pointer}/content/application~1json/schema`).pointer;
  }

  /** Whether the operation's request body must be sent. */
  requestBodyRequired(operationId: string): boolean {
    return resolvePointer(this.spec, `${this.operation(operationId).pointer}/requestBody`).node?.required === true;
  }

  /** Pointer of the JSON schema of an operation's response, following a $ref'd response. */
  responseSchemaPointer(operationId: string, status: string): string | undefined {
    const { pointer, node } = resolvePointer(this.spec, `${this.operation(operationId).pointer}/responses/${status}`);
    return node?.content?.["application/json"]?.schema ? `${pointer}/content/application~1json/schema` : undefined;
  }

  /** The spec's webhooks whose payload schema has a `type` constant. */
  webhooks(): WebhookLocation[] {
    if (this.webhookList) return this.webhookList;
    const found: WebhookLocation[] = [];
    for (const name of Object.keys(this.spec.webhooks ?? {})) {
      const { pointer, node } = resolvePointer(this.spec, `/webhooks/${escapePointer(name)}/post/requestBody/content/application~1json/schema`);
      const eventType = node?.properties?.type?.const;
      if (typeof eventType === "string") found.push({ name, eventType, pointer });
    }
    this.webhookList = found;
    return found;
  }

  /** The webhook whose payload has this `type` constant. */
  webhook(eventType: string): WebhookLocation | undefined {
    return this.webhooks().find((webhook) => webhook.eventType === eventType);
  }

  /** The compiled validator of the schema at a pointer (Ajv knows no bigint: pass Number copies). */
  validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${this.id}#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  /** Error messages for a value at a schema pointer, empty when valid; bigints are checked as numbers. */
  validate(pointer: string, value: unknown): string[] {
    const validate = this.validator(pointer);
    if (validate(withBigIntsAsNumbers(value))) return [];
    return (validate.errors ?? []).map((error) => describeSchemaError(error));
  }
}

function readParameters(spec: OpenApiDocument, operationPointer: string): OperationParameter[] {
  const byKey = new Map<string, OperationParameter>();
  const pathItemPointer = operationPointer.slice(0, operationPointer.lastIndexOf("/"));
  for (const owner of [pathItemPointer, operationPointer]) {
    const list = atPointer(spec, `${owner}/parameters`);
    if (!Array.isArray(list)) continue;
    list.forEach((_entry, index) => {
      const { pointer, node } = resolvePointer(spec, `${owner}/parameters/${index}`);
      if (!node || typeof node.name !== "string" || typeof node.in !== "string") return;
      const schema = resolvePointer(spec, `${pointer}/schema`);
      byKey.set(`${node.in}:${node.name}`, { name: node.name, in: node.in, required: node.required, schemaPointer: schema.pointer, schema: schema.node });
    });
  }
  return [...byKey.values()];
}

const shared = new Map<SpecName, SpecSchemas>();

/** The schemas of a bundled spec, one instance per process (validators compile once). */
export function schemasFor(name: SpecName): SpecSchemas {
  let schemas = shared.get(name);
  if (!schemas) {
    schemas = new SpecSchemas(loadBundle(name), name);
    shared.set(name, schemas);
  }
  return schemas;
}
