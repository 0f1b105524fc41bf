// Id ranges and the rounded-id hint. By default ("large") the sandbox issues order ids above
// 2^53 so any client that parses ids as doubles is caught; "safe" keeps every id it answers with
// below 2^53 for tools that cannot be fixed (docs/ids-and-int64.md). Whatever the range, a
// request naming an id the sandbox lacks but which a double rounding of one it has would produce
// gets a not-found message that names the id it probably meant.
import type { SandboxFixtures } from "../fixtures/load.js";

export const ID_RANGES = ["large", "safe"] as const;
export type IdRange = (typeof ID_RANGES)[number];

export const TWO_POW_53 = 2n ** 53n;

/** Ids above this are not exact as JavaScript numbers. */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Where order ids start. Large: 2^53 + 1, 2^53 + 3 …, odd numbers a double cannot hold. Safe:
 * 2^52 + 1, 2^52 + 3 …, still 16 digits (so an id squeezed into 32 bits is caught) but exact.
 */
export function orderIdBase(range: IdRange = "large"): bigint {
  return range === "safe" ? 2n ** 52n : TWO_POW_53;
}

const isSafe = (id: bigint) => id <= MAX_SAFE && id >= -MAX_SAFE;

/**
 * The fixtures with every record that carries an id above 2^53 left out (merchants, their
 * stores and card templates, authorisations, customers), so a safe-range sandbox never answers
 * with such an id. Returns the records left out, for the banner.
 */
export function safeRangeFixtures(fixtures: SandboxFixtures): { fixtures: SandboxFixtures; omitted: number } {
  const merchants = fixtures.merchants.filter((merchant) => isSafe(merchant.id));
  const kept = new Set(merchants.map((merchant) => merchant.id));
  const stores = fixtures.stores.filter((store) => isSafe(store.id) && kept.has(store.merchantId));
  const cardTemplates = fixtures.cardTemplates.filter(
    (template) => isSafe(template.id) && kept.has(template.merchantId) && template.tiers.every((tier) => isSafe(tier.id)),
  );
  const customers = fixtures.customers.filter((customer) => isSafe(customer.appUserId));
  const omitted =
    fixtures.merchants.length - merchants.length +
    fixtures.stores.length - stores.length +
    fixtures.cardTemplates.length - cardTemplates.length +
    fixtures.customers.length - customers.length;
  const apps = fixtures.apps.map((app) => ({ ...app, merchantIds: app.merchantIds.filter((id) => kept.has(id)) }));
  const apiKeys = fixtures.apiKeys.map((key) => ({ ...key, merchants: key.merchants.filter((merchant) => kept.has(merchant.merchantId)) }));
  return { fixtures: { ...fixtures, apps, apiKeys, merchants, stores, cardTemplates, customers }, omitted };
}

/** The distance between two neighbouring doubles around a (non-negative) integer value. */
function doubleSpacing(value: bigint): bigint {
  const exponent = value.toString(2).length - 1;
  return exponent > 52 ? 2n ** BigInt(exponent - 52) : 1n;
}

/**
 * Every id other than `requested` that a double rounds to `requested`, i.e. `BigInt(Number(id))
 * === requested`: the ids a client that parsed an answer with JSON.parse would turn into this one.
 */
export function idsRoundingTo(requested: bigint): bigint[] {
  if (requested <= MAX_SAFE || BigInt(Number(requested)) !== requested) return [];
  // Integers within one spacing either side are the only ones whose nearest double can be this.
  const spacing = doubleSpacing(requested);
  const candidates: bigint[] = [];
  for (let id = requested - spacing + 1n; id < requested + spacing; id++) {
    if (id !== requested && BigInt(Number(id)) === requested) candidates.push(id);
  }
  return candidates;
}

/**
 * The sentence a not-found message ends with when `requested` is the rounded form of an id the
 * caller may see (`exists`), else "".
 */
export function roundedIdHint(requested: bigint, exists: (id: bigint) => boolean): string {
  const meant = idsRoundingTo(requested).filter(exists);
  if (meant.length === 0) return "";
  const which = meant.length === 1 ? String(meant[0]) : `one of ${meant.join(", ")}`;
  return (
    ` ${requested} is what ${which} becomes when parsed as a JavaScript number (a double is exact only up to 2^53):` +
    ` you probably meant ${which}. Parse ids losslessly, or run the sandbox with --id-range safe;` +
    " see docs/ids-and-int64.md (on this sandbox: /docs/guides/ids-and-int64.html)."
  );
}

/** roundedIdHint for records read from the store: `exists` asks it. */
export async function roundedIdHintOf(requested: bigint, exists: (id: bigint) => Promise<boolean>): Promise<string> {
  const candidates = idsRoundingTo(requested);
  const found = new Set<bigint>();
  for (const id of candidates) if (await exists(id)) found.add(id);
  return roundedIdHint(requested, (id) => found.has(id));
}
