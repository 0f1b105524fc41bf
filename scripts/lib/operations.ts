// A small run-time index of a bundled spec's operations: method, path and the bounds of
// query parameters, so the client and the checker never restate them by hand.
interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface OperationIndexEntry {
  method: string;
  path: string;
  query: Record<string, { required: boolean; type?: unknown; minimum?: number; maximum?: number; default?: unknown; enum?: unknown[] }>;
  pathParams: string[];
  hasBody: boolean;
  /** Top-level properties of the JSON request body that have a default (the validator fills them in). */
  bodyDefaults: string[];
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

function resolveRef<T>(spec: Record<string, unknown>, node: unknown): T {
  let current = node as Record<string, unknown>;
  while (current && typeof current.$ref === "string") {
    const pointer = (current.$ref as string).replace(/^#\//, "").split("/");
    current = pointer.reduce<Record<string, unknown>>((acc, key) => acc[key.replace(/~1/g, "/").replace(/~0/g, "~")] as Record<string, unknown>, spec);
  }
  return current as T;
}

function bodyDefaults(spec: Record<string, unknown>, requestBody: unknown): string[] {
  if (!requestBody) return [];
  const content = resolveRef<{ content?: Record<string, { schema?: unknown }> }>(spec, requestBody).content;
  const schema = resolveRef<{ properties?: Record<string, unknown> }>(spec, content?.["application/json"]?.schema ?? {});
  return Object.entries(schema.properties ?? {})
    .filter(([, property]) => resolveRef<Record<string, unknown>>(spec, property).default !== undefined)
    .map(([name]) => name);
}

export function operationIndex(spec: Record<string, unknown>): Record<string, OperationIndexEntry> {
  const index: Record<string, OperationIndexEntry> = {};
  const paths = (spec.paths ?? {}) as Record<string, Record<string, unknown>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const params = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])].map((p) => resolveRef<ParameterObject>(spec, p));
      const query: OperationIndexEntry["query"] = {};
      for (const param of params.filter((p) => p.in === "query")) {
        const schema = resolveRef<Record<string, unknown>>(spec, param.schema ?? {});
        query[param.name] = {
          required: Boolean(param.required),
          ...(schema.type !== undefined && { type: schema.type }),
          ...(typeof schema.minimum === "number" && { minimum: schema.minimum }),
          ...(typeof schema.maximum === "number" && { maximum: schema.maximum }),
          ...(schema.default !== undefined && { default: schema.default }),
          ...(Array.isArray(schema.enum) && { enum: schema.enum }),
        };
      }
      index[operation.operationId as string] = {
        method: method.toUpperCase(),
        path,
        query,
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        hasBody: Boolean(operation.requestBody),
        bodyDefaults: bodyDefaults(spec, operation.requestBody),
      };
    }
  }
  return index;
}

export function operationsModule(spec: Record<string, unknown>, constName: string, header: string): string {
  const index = operationIndex(spec);
  return (
    header +
    `/** Operations of the spec by operationId: method, path, path parameters, query-parameter bounds, body properties with a default. */\n` +
    `export const ${constName} = ${JSON.stringify(index, null, 2)} as const;\n\n` +
    `export type ${constName[0]!.toUpperCase()}${constName.slice(1).replace(/Operations$/, "OperationId")} = keyof typeof ${constName};\n`
  );
}
