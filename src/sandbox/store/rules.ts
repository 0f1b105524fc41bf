// What every store enforces itself, whatever the caller checked first: quotas per app, unique
// keys (StoreConflictError), a transaction changing only its own app's records; and how a store
// says it cannot be reached (StoreUnavailableError, answered 100019 with Retry-After).
import { MerchantOpenPlatformError } from "../../errors.js";
import { signedError, type RefusalError } from "../errors.js";

/** Orders and trades one app may hold at once (docs/sandbox.md "Limits"); a reset frees them. */
export interface StoreQuotas {
  /** Default 2,000 (an order with 100 large items takes about 170 KB). */
  maxOrdersPerApp: number;
  /** Default 10,000 (a trade takes about 2 KB at most). */
  maxTradesPerApp: number;
}

export const DEFAULT_STORE_QUOTAS: Readonly<StoreQuotas> = Object.freeze({ maxOrdersPerApp: 2_000, maxTradesPerApp: 10_000 });

export function quotaError(kind: "orders" | "payment trades", appKey: string, limit: number): RefusalError {
  return signedError(
    "APP_QUOTA_EXCEEDED",
    `App ${appKey} already has ${limit} ${kind}, as many as the sandbox keeps per app; reset the app (POST /sandbox/reset?appKey=${encodeURIComponent(appKey)}) or use another app.`,
  );
}

/**
 * An insert would repeat a key the store keeps unique (`constraint` names it, as the
 * PostgreSQL store's constraint is named). The domain checks before it inserts, inside the
 * app's transaction, so this is the store's own guard, not the way a repeat is answered.
 */
export class StoreConflictError extends MerchantOpenPlatformError {
  override readonly name = "StoreConflictError";
  /** The unique key the insert would have repeated, e.g. "trades_out_trade_no". */
  readonly constraint: string;

  constructor(message: string, options: { constraint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.constraint = options.constraint ?? "unique";
  }
}

/** The store cannot be reached now (its database is down or does not answer); nothing was changed. */
export class StoreUnavailableError extends MerchantOpenPlatformError {
  override readonly name: string = "StoreUnavailableError";
}

/** A transaction changes its own app's records only. */
export function checkTransactionApp(transactionApp: string, recordApp: string, what: string): void {
  if (recordApp !== transactionApp) throw new Error(`a transaction of app ${transactionApp} cannot write a ${what} of app ${recordApp}`);
}
