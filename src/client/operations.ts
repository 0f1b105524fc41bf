// Types and lookups keyed on operationId, all derived from the generated files: the call's
// init type and its data type come from `operations` in generated/*.ts, and method + path
// from generated/*.operations.ts. Nothing here lists a field by hand.
import type { FetchOptions } from "openapi-fetch";

/** The generated operation table's shape (generated/*.operations.ts). */
export type OperationTable = Readonly<Record<string, { readonly method: string; readonly path: string }>>;

/** Keys of T that must be given. */
export type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/**
 * The success envelope of an operation's 200 answer. The 200 schema also admits the
 * operation's error envelope (a server may answer an error with HTTP 200), told apart by the
 * success code: 0 on the signed interface, 200 on the key-based one.
 */
export type SuccessEnvelope<Op> = Op extends { responses: { 200: { content: { "application/json": infer E } } } } ? Extract<E, { code: 0 } | { code: 200 }> : never;

/** The `data` of an operation's success envelope: what the data mode returns. */
export type OperationData<Op> = SuccessEnvelope<Op> extends { data: infer D } ? D : never;

/** The init of a call: params (path, query), body, and fetch options such as signal or headers. */
export type OperationInit<Op> = FetchOptions<Op>;

/** The init argument, required exactly when the operation has required params or a body. */
export type OperationArgs<Op> = RequiredKeys<OperationInit<Op>> extends never ? [init?: OperationInit<Op>] : [init: OperationInit<Op>];

/** Finds operationIds from method + schema path ("/orders/{orderId}"), as middleware sees them. */
export function operationIndex(table: OperationTable): (method: string, schemaPath: string) => string | undefined {
  const byRoute = new Map<string, string>();
  for (const [operationId, { method, path }] of Object.entries(table)) byRoute.set(`${method.toUpperCase()} ${path}`, operationId);
  return (method, schemaPath) => byRoute.get(`${method.toUpperCase()} ${schemaPath}`);
}
