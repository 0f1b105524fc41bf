// The faults set with the control API (createFault): which operation, which app, how many
// requests, and what happens to them. Faults meet requests oldest first, one use per accepted
// request, so the same control calls followed by the same requests give the same answers in
// the same order: nothing here is random. Bounded per app key (and for "every app"), cleared
// by a reset, never shared between apps (an app key names only its own signed requests).
import type { components } from "../../../generated/sandbox-control.js";
import { signedError } from "../errors.js";

type Schemas = components["schemas"];
export type FaultKind = Schemas["FaultKind"];
export type FaultWhen = Schemas["FaultWhen"];

/** Faults kept per app key, and for every app (appKey absent); spent ones make room first. */
export const MAX_FAULTS_PER_APP = 100;
/** The latest requests a fault remembers having answered. */
export const KEPT_FAULT_HITS = 20;

/** What a fault does: the same for a fault of the table and one given by X-Sandbox-Fault. */
export interface FaultBehaviour {
  kind: FaultKind;
  when: FaultWhen;
  /** As given; null for the kind's default. */
  delayMs: number | null;
  /** Only rate-limited and unavailable have one (default 1). */
  retryAfterSeconds: number | null;
}

/** One request a fault answered; filled in as the request goes on. */
export interface FaultHitRecord {
  time: number;
  method: string;
  path: string;
  appKey: string | null;
  carriedOut: boolean;
  operationCode: number | null;
  status: number | null;
  code: number | null;
}

export interface FaultRecord extends FaultBehaviour {
  faultId: string;
  operationId: string;
  /** null: every app's requests (and the key-based interface's). */
  appKey: string | null;
  times: number;
  remaining: number;
  createTime: number;
  hits: FaultHitRecord[];
}

export interface NewFault extends FaultBehaviour {
  operationId: string;
  appKey: string | null;
  times: number;
}

const scopeName = (appKey: string | null) => (appKey === null ? "faults for every app" : `appKey ${appKey}`);

/** A scope holds MAX_FAULTS_PER_APP faults, none spent. */
export function faultQuotaError(appKey: string | null) {
  return signedError(
    "APP_QUOTA_EXCEEDED",
    `${scopeName(appKey)}: ${MAX_FAULTS_PER_APP} faults are set, the most the sandbox keeps per app, and none is spent; ` +
      "delete some (DELETE /sandbox/faults/{faultId}) or reset the sandbox (POST /sandbox/reset).",
  );
}

export class FaultTable {
  private faults: FaultRecord[] = [];
  private lastId = 0;

  /** Arms a fault; past the bound the oldest spent fault of the same scope makes room, else 100018. */
  add(input: NewFault, now: number): FaultRecord {
    const scope = this.faults.filter((fault) => fault.appKey === input.appKey);
    if (scope.length >= MAX_FAULTS_PER_APP) {
      const spent = scope.find((fault) => fault.remaining === 0);
      if (!spent) throw faultQuotaError(input.appKey);
      this.faults.splice(this.faults.indexOf(spent), 1);
    }
    const fault: FaultRecord = { ...input, faultId: `flt_${++this.lastId}`, remaining: input.times, createTime: now, hits: [] };
    this.faults.push(fault);
    return fault;
  }

  /** Oldest first: the order in which they meet requests. */
  list(filter: { appKey?: string; operationId?: string } = {}): readonly FaultRecord[] {
    return this.faults.filter(
      (fault) => (filter.operationId === undefined || fault.operationId === filter.operationId) && (filter.appKey === undefined || fault.appKey === null || fault.appKey === filter.appKey),
    );
  }

  /** Whether any fault can still meet a request (the common case of none costs a request nothing). */
  hasActive(): boolean {
    return this.faults.some((fault) => fault.remaining > 0);
  }

  get(faultId: string): FaultRecord | undefined {
    return this.faults.find((fault) => fault.faultId === faultId);
  }

  delete(faultId: string): FaultRecord | undefined {
    const fault = this.get(faultId);
    if (fault) this.faults.splice(this.faults.indexOf(fault), 1);
    return fault;
  }

  /**
   * The oldest active fault an accepted request of `operationId` meets, with one use taken:
   * `appKey` is the verified app of a signed request, undefined on the key-based interface
   * (which only faults for every app meet).
   */
  take(operationId: string, appKey: string | undefined, hit: FaultHitRecord): FaultRecord | undefined {
    const fault = this.faults.find((candidate) => candidate.remaining > 0 && candidate.operationId === operationId && (candidate.appKey === null || candidate.appKey === appKey));
    if (!fault) return undefined;
    fault.remaining -= 1;
    fault.hits.push(hit);
    if (fault.hits.length > KEPT_FAULT_HITS) fault.hits.shift();
    return fault;
  }

  /** A reset: every fault gone, ids counted from 1 again; or, of one app, its own faults (not those for every app). */
  clear(appKey?: string): void {
    if (appKey !== undefined) {
      this.faults = this.faults.filter((fault) => fault.appKey !== appKey);
      return;
    }
    this.faults = [];
    this.lastId = 0;
  }
}
