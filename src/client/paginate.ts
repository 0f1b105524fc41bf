// Iterates every item of a list operation across its pages, asking for the largest page size
// the spec allows (generated/*.operations.ts), so a long list costs as few signed calls as
// possible. The lists disagree on their page fields (a source inconsistency kept as is):
//
//   listStores, listCardTemplates, listNearbyStores   answer list, total, pageNo, pageSize
//   listMerchants                                      answers list, total, page, size
//   listAccountMerchants (key-based)                   answers merchants, pagination {page, limit, total, pages}
//
// Iteration stops at the first of: an empty page, a short page, the total reached, or (key-based)
// the last page.
import type { operations as KeyedOperations } from "../../generated/keyed.js";
import { keyedOperations } from "../../generated/keyed.operations.js";
import type { operations as SignedOperations } from "../../generated/signed.js";
import { signedOperations } from "../../generated/signed.operations.js";
import { stringifyJson } from "../json/index.js";
import { ClientConfigError, UnexpectedResponseError } from "./errors.js";
import type { KeyedClient } from "./keyed.js";
import type { OperationData, RequiredKeys } from "./operations.js";
import type { SignedClient } from "./signed.js";

export type SignedListOperationId = "listStores" | "listMerchants" | "listCardTemplates" | "listNearbyStores";
export type KeyedListOperationId = "listAccountMerchants";

/** The query of a list operation (pageNo/page is where iteration starts; pageSize/limit the page size). */
export type ListQuery<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The item type of a list operation's page. */
export type ListItem<Op> =
  OperationData<Op> extends { list: (infer Item)[] } ? Item
  : OperationData<Op> extends { merchants: (infer Item)[] } ? Item
  : never;

/** Options of paginate, beside the list's query. */
export interface PaginateOptions {
  /** Aborts the iteration (the call in flight and any further page). */
  signal?: AbortSignal;
}

/** The query argument is required exactly when the operation has required query parameters. */
export type PaginateArgs<Op> = RequiredKeys<ListQuery<Op>> extends never
  ? [query?: ListQuery<Op>, options?: PaginateOptions]
  : [query: ListQuery<Op>, options?: PaginateOptions];

interface PageView {
  items: unknown[];
  total: bigint | undefined;
  /** The page size the service says it used, if it says. */
  size: number | undefined;
  /** Number of pages (key-based list only). */
  pages: number | undefined;
}

interface ListDialect {
  pageParam: string;
  sizeParam: string;
  read(data: unknown): PageView | undefined;
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const asCount = (value: unknown): bigint | undefined =>
  typeof value === "bigint" ? value : typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : undefined;
const asSize = (value: unknown): number | undefined => (typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined);

const SIGNED_LISTS: ListDialect = {
  pageParam: "pageNo",
  sizeParam: "pageSize",
  read(data) {
    const page = asRecord(data);
    if (!page || !Array.isArray(page.list)) return undefined;
    return { items: page.list, total: asCount(page.total), size: asSize(page.pageSize ?? page.size), pages: undefined };
  },
};

const KEYED_LISTS: ListDialect = {
  pageParam: "page",
  sizeParam: "limit",
  read(data) {
    const page = asRecord(data);
    const pagination = asRecord(page?.pagination);
    if (!page || !Array.isArray(page.merchants)) return undefined;
    return { items: page.merchants, total: asCount(pagination?.total), size: asSize(pagination?.limit), pages: asSize(pagination?.pages) };
  },
};

const SIGNED_LIST_IDS: readonly string[] = ["listStores", "listMerchants", "listCardTemplates", "listNearbyStores"] satisfies SignedListOperationId[];
const KEYED_LIST_IDS: readonly string[] = ["listAccountMerchants"] satisfies KeyedListOperationId[];

type QueryBounds = Readonly<Record<string, { readonly maximum?: number; readonly default?: number } | undefined>>;

/** The largest page size the spec allows for the operation, or its default when it names no maximum. */
function largestPageSize(query: QueryBounds, sizeParam: string): number {
  const bounds = query[sizeParam];
  return bounds?.maximum ?? bounds?.default ?? 10;
}

function requirePositiveInteger(field: string, value: unknown, max?: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new ClientConfigError(field, `${field} must be a whole number of at least 1, got ${typeof value === "number" ? value : typeof value}`);
  }
  if (max !== undefined && value > max) {
    throw new ClientConfigError(field, `${field} must be at most ${max} for this operation (the spec's maximum), got ${value}`);
  }
  return value;
}

/**
 * Iterates every item of a list operation, page after page, asking for the largest page size
 * the spec allows (or the pageSize/limit you pass). Each page is one call, signed and retried
 * like any other GET; iteration stops at an empty or short page, at `total`, or at the last page.
 *
 * @example
 * for await (const store of paginate(client, "listStores", { merchantId: 10001 })) console.log(store.name);
 * // key-based: for await (const merchant of paginate(keyedClient, "listAccountMerchants")) ...
 */
export function paginate<Id extends SignedListOperationId>(
  client: SignedClient,
  operationId: Id,
  ...args: PaginateArgs<SignedOperations[Id]>
): AsyncIterable<ListItem<SignedOperations[Id]>>;
/** Every merchant of the key-based list, page after page (see the signed overload). */
export function paginate<Id extends KeyedListOperationId>(
  client: KeyedClient,
  operationId: Id,
  ...args: PaginateArgs<KeyedOperations[Id]>
): AsyncIterable<ListItem<KeyedOperations[Id]>>;
export function paginate(
  client: SignedClient | KeyedClient,
  operationId: string,
  query?: Record<string, unknown>,
  options: PaginateOptions = {},
): AsyncIterable<unknown> {
  const kind = (client as { kind?: unknown } | null)?.kind;
  if (kind !== "signed" && kind !== "keyed") {
    throw new ClientConfigError("client", "paginate needs a client from createSignedClient or createKeyedClient");
  }
  const lists = kind === "signed" ? SIGNED_LIST_IDS : KEYED_LIST_IDS;
  if (!lists.includes(operationId)) {
    throw new ClientConfigError("operationId", `paginate cannot page ${JSON.stringify(operationId)} on the ${kind} client; it pages ${lists.join(", ")}`);
  }
  if (query !== undefined && asRecord(query) === undefined) throw new ClientConfigError("query", "the query must be an object");
  const dialect = kind === "signed" ? SIGNED_LISTS : KEYED_LISTS;
  const table = (kind === "signed" ? signedOperations : keyedOperations) as unknown as Record<string, { query: QueryBounds }>;
  const maximum = largestPageSize(table[operationId]?.query ?? {}, dialect.sizeParam);

  // Checked now, not at the first page, so the mistake points at the paginate() call.
  const givenSize = query?.[dialect.sizeParam];
  const size = givenSize === undefined ? maximum : requirePositiveInteger(dialect.sizeParam, givenSize, maximum);
  const givenPage = query?.[dialect.pageParam];
  const firstPage = givenPage === undefined ? 1 : requirePositiveInteger(dialect.pageParam, givenPage);
  const call = client.call as (id: string, init: unknown) => Promise<unknown>;

  async function* pages(): AsyncGenerator<unknown> {
    for (let page = firstPage; ; page++) {
      const data = await call(operationId, {
        params: { query: { ...query, [dialect.pageParam]: page, [dialect.sizeParam]: size } },
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const view = dialect.read(data);
      if (!view) {
        throw new UnexpectedResponseError({ reason: "the list answer has no item array", httpStatus: 200, body: stringifyJson(data) ?? "", operationId });
      }
      yield* view.items;
      const pageSize = view.size ?? size;
      if (view.items.length === 0 || view.items.length < pageSize) return;
      if (view.total !== undefined && BigInt(page) * BigInt(pageSize) >= view.total) return;
      if (view.pages !== undefined && page >= view.pages) return;
    }
  }
  return { [Symbol.asyncIterator]: pages };
}
