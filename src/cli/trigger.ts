// `mop trigger <event>`: like `stripe trigger`, sends one well-formed, signed test callback of any
// webhook the spec defines straight to a receiver (no sandbox needed), or one of the variants a
// receiver must handle (a duplicate, reordered members, a tampered body, a wrong secret, a stale
// timestamp), and prints what the receiver answered. For developing a callback handler on its
// own. The secret is input only: it is never printed.
import { parseArgs } from "node:util";
import { CALLBACK_VARIANTS, CallbackConfigError, callbackEventTypes, testDelivery, testEventBody, type CallbackVariant, type TestDelivery } from "../callbacks/index.js";
import { parseJsonLossless } from "../json/index.js";
import { UsageError } from "./errors.js";
import { EXIT_USAGE, type Subcommand } from "./io.js";

/** As long as the platform gives a receiver (DESIGN item 8). */
const DEFAULT_TIMEOUT_MS = 5000;
/** How much of the receiver's answer is printed. */
const SHOWN_ANSWER_BYTES = 200;

function usage(): string {
  return `Usage: mop trigger <event> --notify-url URL --app-key KEY [--app-secret SECRET] [options]

Sends one well-formed test callback, signed as the platform signs it, straight to your
receiver and prints what it answered. No sandbox needed: for developing a callback handler
on its own. The event is the webhook's example in the spec, with a fresh id and time.

Events:
  ${callbackEventTypes().join("\n  ")}

Options:
  --notify-url URL     where to send it (required; http:// is fine for your own machine)
  --app-key KEY        X-App-Key (required)
  --app-secret SECRET  the app's secret (or the MOP_APP_SECRET environment variable, which
                       keeps it out of the process list); never printed
  --variant V          send a variant a receiver must handle instead (docs/scenarios.md):
                         exact             the event, then the same body and id again (a duplicate)
                         reordered-fields  the same JSON with its members reordered
                         tampered-body     the body changed after signing
                         wrong-secret      signed with a secret that is not the app's
                         stale-timestamp   signed with a timestamp outside the window
  --data JSON          members of the event's data to set, e.g. '{"outTradeNo":"M-1"}'
  --timeout MS         how long the receiver has to answer (default ${DEFAULT_TIMEOUT_MS}, as the platform)
  --json               print the result as JSON
  -h, --help           show this help

Exit code 0 when the receiver answered as a correct receiver must: 2xx for a well-formed
event, an exact duplicate and reordered fields; anything else for tampered-body,
wrong-secret and stale-timestamp. 1 when it did not; 2 for usage errors and a receiver
that cannot be reached.
`;
}

const OPTIONS = {
  "notify-url": { type: "string" },
  "app-key": { type: "string" },
  "app-secret": { type: "string" },
  variant: { type: "string" },
  data: { type: "string" },
  timeout: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

interface Sent {
  label: string;
  expected: "acknowledged" | "refused";
  httpStatus: number | null;
  /** The first bytes of the answer, as text. */
  answer: string | null;
  error: string | null;
  durationMs: number;
  asExpected: boolean;
}

function readData(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = parseJsonLossless(text);
  } catch (error) {
    throw new UsageError(`--data is not JSON: ${(error as Error).message}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new UsageError("--data must be a JSON object of the event's data members");
  return data as Record<string, unknown>;
}

function readTimeout(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TIMEOUT_MS;
  if (!/^[1-9][0-9]{0,6}$/.test(text)) throw new UsageError(`--timeout must be a number of milliseconds from 1 to 9999999, got ${JSON.stringify(text)}`);
  return Number(text);
}

function readUrl(text: string | undefined): string {
  if (!text) throw new UsageError("--notify-url is required");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--notify-url is not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--notify-url must be http:// or https://, got ${url.protocol}`);
  if (url.username || url.password) throw new UsageError("--notify-url must not carry credentials");
  return url.href;
}

type Answer = Omit<Sent, "label" | "expected" | "asExpected">;

/** Posts one delivery; its answer, or why no connection could be made. */
async function post(url: string, delivery: { headers: Record<string, string>; body: string }, timeoutMs: number): Promise<Answer | { unreachable: string }> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url, { method: "POST", headers: { ...delivery.headers, "Content-Type": "application/json" }, body: delivery.body, redirect: "manual", signal: controller.signal });
    const bytes = Buffer.from(await response.arrayBuffer());
    const answer = bytes.length === 0 ? null : bytes.subarray(0, SHOWN_ANSWER_BYTES).toString("utf8");
    return { httpStatus: response.status, answer, error: null, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    if (controller.signal.aborted) return { httpStatus: null, answer: null, error: `no answer within ${timeoutMs} ms`, durationMs: Math.round(performance.now() - started) };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { unreachable: cause?.code ? `${cause.code}${cause.message ? `: ${cause.message}` : ""}` : (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

function describe(sent: Sent): string {
  const outcome = sent.httpStatus === null ? (sent.error ?? "no answer") : `HTTP ${sent.httpStatus}${sent.answer === null ? "" : ` ${JSON.stringify(sent.answer)}`}`;
  const verdict = sent.asExpected ? "as a correct receiver must" : `a correct receiver would have ${sent.expected === "acknowledged" ? "acknowledged it (2xx)" : "refused it (not 2xx)"}`;
  return `  ${sent.label}: ${outcome} in ${sent.durationMs} ms (${verdict})`;
}

export const triggerCommand: Subcommand = async (args, io) => {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(usage());
    return 0;
  }
  const [type, ...extra] = positionals;
  if (type === undefined) throw new UsageError(`name the event to send: ${callbackEventTypes().join(", ")}`);
  if (extra.length > 0) throw new UsageError(`one event at a time; unexpected ${JSON.stringify(extra[0])}`);
  if (!callbackEventTypes().includes(type)) throw new UsageError(`unknown event ${JSON.stringify(type)}; the spec's webhooks send ${callbackEventTypes().join(", ")}`);
  const url = readUrl(values["notify-url"]);
  const appKey = values["app-key"];
  if (!appKey) throw new UsageError("--app-key is required");
  const appSecret = values["app-secret"] ?? io.env.MOP_APP_SECRET;
  if (!appSecret) throw new UsageError("the app's secret is required: --app-secret SECRET, or the MOP_APP_SECRET environment variable");
  const variant = values.variant as CallbackVariant | undefined;
  if (variant !== undefined && !(CALLBACK_VARIANTS as readonly string[]).includes(variant)) throw new UsageError(`--variant must be one of ${CALLBACK_VARIANTS.join(", ")}, got ${JSON.stringify(variant)}`);
  const timeoutMs = readTimeout(values.timeout);

  let body: string;
  try {
    body = testEventBody(type, { data: readData(values.data) });
  } catch (error) {
    if (error instanceof CallbackConfigError) throw new UsageError(`--data: ${error.message}`);
    throw error;
  }
  const eventId = (JSON.parse(body) as { id: string }).id;
  // A duplicate follows the event itself; every other variant is sent alone.
  const plan: { label: string; delivery: Pick<TestDelivery, "headers" | "body" | "expected"> }[] = [];
  const input = { appKey, appSecret, body };
  if (variant === undefined || variant === "exact") plan.push({ label: "the event", delivery: { ...testDelivery("exact", input), expected: "acknowledged" } });
  if (variant !== undefined) {
    const delivery = testDelivery(variant, input);
    plan.push({ label: `${variant} (${delivery.description})`, delivery });
  }

  const sent: Sent[] = [];
  for (const { label, delivery } of plan) {
    const answer = await post(url, delivery, timeoutMs);
    if ("unreachable" in answer) {
      io.stderr(`mop trigger: could not reach ${url}: ${answer.unreachable}\n`);
      return EXIT_USAGE;
    }
    const acknowledged = answer.httpStatus !== null && answer.httpStatus >= 200 && answer.httpStatus < 300;
    sent.push({ label, expected: delivery.expected, ...answer, asExpected: acknowledged === (delivery.expected === "acknowledged") });
  }
  const ok = sent.every((one) => one.asExpected);
  if (values.json) {
    io.stdout(`${JSON.stringify({ type, eventId, url, variant: variant ?? null, body, deliveries: sent, ok }, null, 2)}\n`);
  } else {
    const lines = [`mop trigger: ${type} ${eventId} to ${url}`, ...sent.map(describe), `  body: ${body}`];
    lines.push(ok ? "The receiver answered as a correct receiver must." : "The receiver did not answer as a correct receiver must (see above).");
    io.stdout(`${lines.join("\n")}\n`);
  }
  return ok ? 0 : 1;
};
