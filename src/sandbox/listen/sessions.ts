// `mop listen` sessions on this instance: an app's callbacks forwarded to a developer's machine
// over the sandbox's own HTTP (server-sent events), the local receiver's answer coming back as
// the attempt's outcome, so the sandbox's schedule, retries and delivery log apply as if it had
// sent the callback itself. One session per app: a new one replaces the old (which is told, and
// closed). With records shared by several instances, the session is registered with them, so the
// app's deliveries are attempted by the instance that holds it (store/postgres/callback-log.ts).
import { randomBytes } from "node:crypto";
import type { SandboxLogger } from "../logger.js";
import type { ListenerRegistry } from "../store/types.js";

/** One delivery attempt as the listener receives it: the exact bytes and the signature headers to forward. */
export interface ListenDelivery {
  attemptId: string;
  eventId: string;
  type: string;
  /** X-App-Key, X-Timestamp, X-Nonce, X-Sign and Content-Type, as the sandbox would have sent them. */
  headers: Record<string, string>;
  body: string;
  /** How long the receiver's answer may take before the attempt counts as failed. */
  timeoutMs: number;
}

/** What the listener reports back: the local receiver's status, or why it gave none. */
export interface ListenAck {
  attemptId: string;
  httpStatus: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
}

export interface ListenSession {
  readonly sessionId: string;
  readonly appKey: string;
  /** Writes one server-sent event. */
  send(event: string, data: unknown): void;
  /** Ends the stream (after a last event saying why). */
  end(reason: string): void;
}

interface Waiting {
  appKey: string;
  resolve(ack: ListenAck): void;
}

/** How often a session's registration with shared records is renewed (it lapses after three times this). */
export const LISTEN_RENEW_MS = 5000;

export class ListenSessions {
  private readonly sessions = new Map<string, ListenSession>();
  private readonly waiting = new Map<string, Waiting>();
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly registry: ListenerRegistry,
    private readonly logger: SandboxLogger,
  ) {}

  static newSessionId(): string {
    return `lsn_${randomBytes(12).toString("hex")}`;
  }

  has(appKey: string): boolean {
    return this.sessions.has(appKey);
  }

  /** Starts receiving the app's deliveries here; the app's earlier session, here or on another instance, is replaced. */
  async open(session: ListenSession): Promise<void> {
    await this.registry.register(session.appKey, session.sessionId);
    const previous = this.sessions.get(session.appKey);
    this.sessions.set(session.appKey, session);
    if (previous) this.closeSession(previous, "replaced: another mop listen session for this app started");
    const renewal = setInterval(() => void this.renew(session), LISTEN_RENEW_MS);
    renewal.unref();
    this.renewals.set(session.sessionId, renewal);
  }

  private async renew(session: ListenSession): Promise<void> {
    try {
      if (!(await this.registry.renew(session.appKey, session.sessionId))) this.closeSession(session, "replaced: another mop listen session for this app started");
    } catch (error) {
      this.logger.warn("A mop listen session could not be renewed with the store; it is kept and renewed again shortly.", { appKey: session.appKey, error });
    }
  }

  private closeSession(session: ListenSession, reason: string): void {
    clearInterval(this.renewals.get(session.sessionId));
    this.renewals.delete(session.sessionId);
    if (this.sessions.get(session.appKey) === session) this.sessions.delete(session.appKey);
    session.end(reason);
  }

  /** The listener went away (its connection closed). */
  async closed(session: ListenSession): Promise<void> {
    const current = this.sessions.get(session.appKey) === session;
    this.closeSession(session, "closed");
    if (current) await this.registry.unregister(session.appKey, session.sessionId).catch(() => undefined);
  }

  /** Sends one attempt to the app's listener and waits for its report (or the abort of the attempt's timeout). */
  forward(appKey: string, delivery: Omit<ListenDelivery, "attemptId">, signal: AbortSignal | undefined): Promise<ListenAck> {
    const session = this.sessions.get(appKey);
    if (!session) return Promise.reject(new Error("the mop listen session for this app closed before the attempt"));
    const attemptId = `att_${randomBytes(12).toString("hex")}`;
    return new Promise<ListenAck>((resolve, reject) => {
      const done = () => {
        this.waiting.delete(attemptId);
        signal?.removeEventListener("abort", aborted);
      };
      const aborted = () => {
        done();
        reject(signal?.reason ?? new Error("aborted"));
      };
      if (signal?.aborted) return aborted();
      signal?.addEventListener("abort", aborted, { once: true });
      this.waiting.set(attemptId, {
        appKey,
        resolve: (ack) => {
          done();
          resolve(ack);
        },
      });
      session.send("delivery", { attemptId, ...delivery });
    });
  }

  /** The listener's report of an attempt; false when no attempt of this app waits for it (answered late, or another app's). */
  acknowledge(appKey: string, ack: ListenAck): boolean {
    const waiting = this.waiting.get(ack.attemptId);
    if (!waiting || waiting.appKey !== appKey) return false;
    waiting.resolve(ack);
    return true;
  }

  /** The sandbox stops: every session ends (and is unregistered, so the app's deliveries go to the other instances). */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => this.closed(session)));
  }
}

/**
 * The fetch the callback sender uses: an app with a listen session here has each attempt
 * forwarded to it (the sender's timeout and abort apply), any other goes out over HTTP.
 */
export function listeningFetch(sessions: ListenSessions, send: typeof fetch, timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const appKey = headers.get("x-app-key");
    if (appKey === null || !sessions.has(appKey)) return send(input, init);
    const body = typeof init?.body === "string" ? init.body : "";
    let event: { id?: unknown; type?: unknown } = {};
    try {
      event = JSON.parse(body) as typeof event;
    } catch {
      // The sender's bodies are JSON; nothing to read otherwise.
    }
    const forwarded: Record<string, string> = {};
    headers.forEach((value, name) => {
      forwarded[name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`)] = value;
    });
    const ack = await sessions.forward(appKey, { eventId: String(event.id ?? ""), type: String(event.type ?? ""), headers: forwarded, body, timeoutMs }, init?.signal ?? undefined);
    if (ack.httpStatus === null) throw new Error(`mop listen could not forward it: ${ack.error ?? "no answer"}`);
    if (ack.httpStatus < 200 || ack.httpStatus > 599) throw new Error(`mop listen: the receiver answered HTTP ${ack.httpStatus}`);
    return new Response([204, 205, 304].includes(ack.httpStatus) ? null : ack.responseBody, { status: ack.httpStatus });
  };
}
