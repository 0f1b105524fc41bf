// Named types per operation for the server kit's handlers (generated/<spec>.handlers.ts): the data
// of each operation's success envelope as `<Operation>Output`, and the registry names of the
// errors it declares (openapi/errors.yaml appliesTo) as `<Operation>ErrorName`. Named, so that a
// type error about one wrong field says "not assignable to GetStoreOutput" instead of printing
// the whole answer, and a handler's undeclared error name says which operation's list it missed.
import { codesOf, type ErrorRegistry, type Variant } from "./error-registry.js";

const METHODS = ["get", "put", "post", "delete", "patch"];

function resolve(spec: Record<string, unknown>, node: unknown): Record<string, any> | undefined {
  let current = node as Record<string, any> | undefined;
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 32; hops++) {
    current = (current.$ref as string)
      .replace(/^#\//, "")
      .split("/")
      .reduce<any>((acc, key) => acc?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], spec);
  }
  return current;
}

/** The schema of `data` in the success branch of the operation's 200 answer. */
function successData(spec: Record<string, unknown>, operation: Record<string, any>, successCode: number): Record<string, any> | undefined {
  const schema = resolve(spec, resolve(spec, operation.responses?.["200"])?.content?.["application/json"]?.schema);
  const branches = (schema?.oneOf ?? [schema]).map((branch: unknown) => resolve(spec, branch));
  const success = branches.find((branch: Record<string, any> | undefined) => {
    const code = resolve(spec, branch?.properties?.code);
    return code?.const === successCode || (Array.isArray(code?.enum) && code.enum.length === 1 && code.enum[0] === successCode);
  });
  return resolve(spec, success?.properties?.data);
}

/** An object with statically known members can be an interface; anything else (an id, an array, a union) is an alias. */
const isPlainObject = (schema: Record<string, any> | undefined) => schema?.type === "object" && !schema.oneOf && !schema.anyOf;

const pascal = (operationId: string) => operationId[0]!.toUpperCase() + operationId.slice(1);

export function handlerTypesModule(spec: Record<string, unknown>, variant: Variant, registry: ErrorRegistry, header: string): string {
  const successCode = variant === "signed" ? 0 : 200;
  const prefix = variant === "signed" ? "Signed" : "Keyed";
  const operations: Array<{ id: string; operation: Record<string, any> }> = [];
  for (const item of Object.values((spec.paths ?? {}) as Record<string, Record<string, any>>)) {
    for (const method of METHODS) if (item[method]?.operationId) operations.push({ id: item[method].operationId as string, operation: item[method] });
  }
  const lines = [
    header.trimEnd(),
    `// Named handler types of the ${variant} interface; src/server/handlers.ts builds the handler tables on them.`,
    `import type { operations } from "./${variant}.js";`,
    "",
    "/** The data of an operation's success envelope (its 200 admits the error envelope too, told apart by code). */",
    `type Data<Op> = Op extends { responses: { 200: { content: { "application/json": infer E } } } } ? (Extract<E, { code: ${successCode} }> extends { data: infer D } ? D : never) : never;`,
    "",
  ];
  for (const { id, operation } of operations) {
    const name = pascal(id);
    lines.push(`/** ${id}: the data of its success envelope. */`);
    lines.push(isPlainObject(successData(spec, operation, successCode)) ? `export interface ${name}Output extends Data<operations["${id}"]> {}` : `export type ${name}Output = Data<operations["${id}"]>;`);
    const errors = codesOf(registry[variant], variant, id).map((entry) => JSON.stringify(entry.name));
    lines.push(`/** ${id}: the registry names of the errors it declares (openapi/errors.yaml, appliesTo). */`);
    lines.push(`export type ${name}ErrorName = ${errors.length > 0 ? errors.join(" | ") : "never"};`);
    lines.push("");
  }
  lines.push(`/** Each operation's output, by operationId. */`);
  lines.push(`export interface ${prefix}Outputs {`, ...operations.map(({ id }) => `  ${id}: ${pascal(id)}Output;`), "}", "");
  lines.push(`/** Each operation's declared error names, by operationId. */`);
  lines.push(`export interface ${prefix}OperationErrorNames {`, ...operations.map(({ id }) => `  ${id}: ${pascal(id)}ErrorName;`), "}", "");
  return lines.join("\n");
}
