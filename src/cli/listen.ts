// `mop listen --forward-to http://localhost:3000/notify`: a developer's machine receives an app's
// callbacks from a sandbox (a shared one included) without being reachable from it. It holds a
// signed server-sent-events stream (GET /sandbox/listen), POSTs each delivery's exact bytes and
// signature headers to the local URL, and reports the answer back (POST /sandbox/listen/acks),
// so the sandbox records the attempt and retries a failing receiver on its own schedule. It
// reconnects when the stream drops, and stops on Ctrl+C.
import { parseArgs } from "node:util";
import { parseJsonLossless } from "../json/index.js";
import { signRequestHeaders } from "../signing/index.js";
import { UsageError } from "./errors.js";
import type { CliIo, Subcommand } from "./io.js";

const USAGE = `Usage: mop listen --forward-to URL --app-key KEY [options]

Receives an app's callbacks from a sandbox (yours, or one your team shares) and forwards each
to a URL on this machine, which the sandbox need not reach: the local answer is reported back
as the attempt's outcome, so a failing receiver is retried on the sandbox's schedule and the
delivery log shows what it answered. One session per app: a new one replaces the old. Stop it
with Ctrl+C.

Options:
  --forward-to URL     where to POST each callback, e.g. http://localhost:3000/notify (required)
  --base-url URL       the sandbox (default http://127.0.0.1:4010)
  --app-key KEY        the app whose callbacks to receive (required, or MOP_APP_KEY)
  --app-secret SECRET  its secret, which signs the session (or MOP_APP_SECRET, which keeps it
                       out of your shell history and the process list; never printed)
  -h, --help           show this help

Exit codes: 0 stopped with Ctrl+C; 1 refused by the sandbox (wrong key or secret) or replaced
by another session; 2 usage.
`;

const OPTIONS = {
  "forward-to": { type: "string" },
  "base-url": { type: "string" },
  "app-key": { type: "string" },
  "app-secret": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** The receiver's answer keeps this much of a refusal's body, as the sandbox's own attempts do. */
const KEPT_BODY_CHARS = 200;
const MAX_RECONNECT_DELAY_MS = 10_000;

interface Delivery {
  attemptId: string;
  eventId: string;
  type: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

function httpUrl(flag: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag} must be an http:// or https:// URL, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`${flag} must be an http:// or https:// URL, got ${JSON.stringify(text)}`);
  return url;
}

function errorText(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.code) return cause.code;
  if (cause?.message) return `${error instanceof Error ? error.message : "failed"}: ${cause.message}`;
  if ((error as { name?: string } | null)?.name === "TimeoutError") return "no answer in time";
  return error instanceof Error ? error.message : String(error);
}

/** Splits a server-sent-events stream into events (name and data). */
async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length > 0) yield { event, data: data.join("\n") };
    }
  }
}

interface Settings {
  base: string;
  forwardTo: string;
  appKey: string;
  appSecret: string;
}

/** POSTs the delivery to the local URL; the answer as the sandbox records an attempt's. */
async function forward(settings: Settings, delivery: Delivery) {
  const started = performance.now();
  try {
    const response = await fetch(settings.forwardTo, {
      method: "POST",
      headers: delivery.headers,
      body: delivery.body,
      redirect: "manual",
      // The sandbox's own timeout runs too; answer a little before it.
      signal: AbortSignal.timeout(Math.max(100, delivery.timeoutMs - 300)),
    });
    const text = response.status >= 200 && response.status < 300 ? null : (await response.text()).slice(0, KEPT_BODY_CHARS) || null;
    if (text === null) await response.body?.cancel().catch(() => undefined);
    return { httpStatus: response.status, error: null, responseBody: text, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { httpStatus: null, error: `${errorText(error)} (forwarding to ${settings.forwardTo})`.slice(0, 500), responseBody: null, durationMs: Math.round(performance.now() - started) };
  }
}

async function acknowledge(settings: Settings, ack: Record<string, unknown>): Promise<string | undefined> {
  const body = JSON.stringify(ack);
  try {
    const response = await fetch(`${settings.base}/sandbox/listen/acks`, {
      method: "POST",
      headers: { ...signRequestHeaders({ appKey: settings.appKey, appSecret: settings.appSecret, body }), "Content-Type": "application/json" },
      body,
    });
    if (response.ok) return undefined;
    const envelope = parseJsonLossless(await response.text()) as { msg?: string };
    return envelope?.msg ?? `HTTP ${response.status}`;
  } catch (error) {
    return errorText(error);
  }
}

/** Forwards one delivery and reports the answer back; prints one line. */
async function relay(settings: Settings, io: CliIo, delivery: Delivery): Promise<void> {
  const outcome = await forward(settings, delivery);
  const problem = await acknowledge(settings, { attemptId: delivery.attemptId, ...outcome });
  const result = outcome.httpStatus === null ? `failed: ${outcome.error}` : `${outcome.httpStatus}`;
  io.stdout(`${new Date().toISOString()}  ${delivery.type} ${delivery.eventId} -> ${result} (${outcome.durationMs} ms)${problem === undefined ? "" : `; the sandbox did not take the answer: ${problem}`}\n`);
}

type SessionEnd = { kind: "refused"; message: string } | { kind: "replaced"; message: string } | { kind: "dropped"; message: string } | { kind: "stopped" };

/** One session: connect, forward until the stream ends; says how it ended. */
async function session(settings: Settings, io: CliIo, stop: AbortSignal): Promise<SessionEnd> {
  let response: Response;
  try {
    response = await fetch(`${settings.base}/sandbox/listen`, { headers: signRequestHeaders({ appKey: settings.appKey, appSecret: settings.appSecret }), signal: stop });
  } catch (error) {
    return stop.aborted ? { kind: "stopped" } : { kind: "dropped", message: `cannot reach ${settings.base} (${errorText(error)})` };
  }
  if (response.status !== 200 || !response.body) {
    const text = await response.text().catch(() => "");
    let message = `HTTP ${response.status}`;
    try {
      const envelope = parseJsonLossless(text) as { code?: number; msg?: string };
      if (envelope?.msg) message = `${envelope.msg} (code ${envelope.code})`;
    } catch {
      // not an envelope
    }
    // A refusal of the key or signature will not pass on a retry; a sandbox that is not up yet may.
    return response.status >= 500 || response.status === 429 ? { kind: "dropped", message } : { kind: "refused", message };
  }
  try {
    for await (const { event, data } of serverSentEvents(response.body)) {
      const message = JSON.parse(data) as Record<string, unknown>;
      if (event === "ready") {
        io.stdout(`Ready: forwarding ${settings.appKey}'s callbacks from ${settings.base} to ${settings.forwardTo} (Ctrl+C to stop).\n`);
      } else if (event === "delivery") {
        // Each at once: a slow receiver holds up only its own attempt.
        void relay(settings, io, message as unknown as Delivery);
      } else if (event === "closed") {
        const reason = String(message.reason ?? "closed");
        return reason.startsWith("replaced") ? { kind: "replaced", message: reason } : { kind: "dropped", message: `the sandbox ended the session (${reason})` };
      }
    }
  } catch (error) {
    if (stop.aborted) return { kind: "stopped" };
    return { kind: "dropped", message: `the stream broke (${errorText(error)})` };
  }
  return stop.aborted ? { kind: "stopped" } : { kind: "dropped", message: "the sandbox closed the stream" };
}

export const listenCommand: Subcommand = async (args, io) => {
  let values;
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (values["forward-to"] === undefined) throw new UsageError("--forward-to is required, e.g. --forward-to http://localhost:3000/notify");
  const forwardTo = httpUrl("--forward-to", values["forward-to"]).toString();
  const base = httpUrl("--base-url", values["base-url"] ?? "http://127.0.0.1:4010").toString().replace(/\/+$/, "");
  const appKey = values["app-key"] ?? io.env.MOP_APP_KEY;
  const appSecret = values["app-secret"] ?? io.env.MOP_APP_SECRET;
  if (!appKey) throw new UsageError("--app-key (or MOP_APP_KEY) is required");
  if (!appSecret) throw new UsageError("--app-secret (or MOP_APP_SECRET) is required");
  const settings: Settings = { base, forwardTo, appKey, appSecret };

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    let delayMs = 500;
    for (;;) {
      const connected = performance.now();
      const end = await session(settings, io, stop.signal);
      if (end.kind === "stopped") {
        io.stdout("Stopped.\n");
        return 0;
      }
      if (end.kind === "refused" || end.kind === "replaced") {
        io.stderr(`mop listen: ${end.message}\n`);
        return 1;
      }
      // A session that lasted a while starts the back-off again.
      if (performance.now() - connected > 30_000) delayMs = 500;
      io.stderr(`mop listen: ${end.message}; connecting again in ${(delayMs / 1000).toFixed(1)} s.\n`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        stop.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (stop.signal.aborted) {
        io.stdout("Stopped.\n");
        return 0;
      }
      delayMs = Math.min(delayMs * 2, MAX_RECONNECT_DELAY_MS);
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
};
