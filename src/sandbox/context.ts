// What every part of a running sandbox shares.
import type { NonceStore } from "../signing/index.js";
import type { RateLimiter } from "../server/index.js";
import type { CashierKeys } from "./cashier-key.js";
import type { NotifyPolicy } from "./notify-target.js";
import type { ServedHosts } from "./site-guard.js";
import type { CallbackDispatcher } from "./callbacks/dispatcher.js";
import type { SandboxClock } from "./clock.js";
import type { SandboxLogger } from "./logger.js";
import type { SandboxRecords } from "./store/types.js";
import type { IdRange } from "./domain/id-range.js";
import type { Scenarios } from "./scenarios/scenarios.js";
import type { ListenSessions } from "./listen/sessions.js";

export interface SandboxContext {
  records: SandboxRecords;
  clock: SandboxClock;
  callbacks: CallbackDispatcher;
  logger: SandboxLogger;
  nonceStore: NonceStore;
  /** What keeps the nonces, for the health report: "memory", "postgres", "redis" … */
  nonceStoreKind?: string;
  rateLimiter: RateLimiter;
  allowInsecureNotify: boolean;
  /** Where new order ids come from: above 2^53 ("large", the default) or below ("safe"). */
  idRange?: IdRange;
  /** Which notifyUrl hosts callbacks may go to (notify-target.ts). */
  notifyPolicy: NotifyPolicy;
  /** The base of cashier URLs: the configured publicBaseUrl, else the listen URL, else the request's own origin. */
  publicBaseUrl(requestOrigin: string): string;
  /** The Host names answered (site-guard.ts). */
  servedHosts: ServedHosts;
  /** The key in each cashierUrl (cashier-key.ts). */
  cashierKeys: CashierKeys;
  /** `mop listen` sessions held by this instance (listen/sessions.ts). */
  listenSessions?: ListenSessions;
  /** How long a callback receiver has to answer (a listener forwarding one too). */
  callbackTimeoutMs?: number;
  /** Settles once the store is open (a database reached, migrated, its fixtures checked). Default: open. */
  opened?: Promise<void>;
  /** Faults and the other scenarios' state and timers (docs/scenarios.md). */
  scenarios: Scenarios;
}
