// Options of a conformance run, with defaults and validation.
import { OptionsError } from "./errors.js";

export interface ConformanceOptions {
  /** Service base address, e.g. http://127.0.0.1:4010 (no trailing /open-api). */
  baseUrl: string;
  appKey: string;
  /** The app's secret; requests are signed with it. May be empty when appSecrets names one. */
  appSecret: string;
  /**
   * Further secrets valid for the app during a rotation. Callbacks are verified against every
   * secret given (the server signs them with its primary, which may be any of these).
   */
  appSecrets?: string[];
  /** Signed base path: the versioned /open-api/v1 (default) or the unversioned /open-api. */
  basePath?: "/open-api/v1" | "/open-api";
  /** Merchants the app is authorised for; the first is used for writes. Discovered when empty. */
  merchantIds?: string[];
  /** A merchant that exists but is not authorised for the app, for the 100008 check. */
  foreignMerchantId?: string;
  /** API key of the key-based interface; its checks are skipped without it. */
  apiKey?: string;
  variants?: Array<"signed" | "keyed">;
  include?: string[];
  exclude?: string[];
  strictHttp?: boolean;
  concurrency?: number;
  timeoutMs?: number;
  /** Requests per second at most (0 = unlimited). */
  rateLimit?: number;
  /** Base URL of a sandbox control API; by default {baseUrl}/sandbox is probed. */
  controlUrl?: string | false;
  /** Public URL that reaches the checker's callback receiver (for servers that cannot call loopback). */
  notifyUrl?: string;
  receiverHost?: string;
  receiverPort?: number;
  /** PEM certificate and key: the receiver then serves HTTPS, for servers that refuse http notifyUrls. */
  receiverTls?: { cert: string | Buffer; key: string | Buffer };
  /** How long to wait for a callback delivery or its retry. */
  callbackWaitMs?: number;
  fetch?: typeof fetch;
}

export interface ResolvedOptions extends Required<Omit<ConformanceOptions, "foreignMerchantId" | "apiKey" | "notifyUrl" | "fetch" | "controlUrl" | "receiverTls">> {
  receiverTls: { cert: string | Buffer; key: string | Buffer } | undefined;
  foreignMerchantId: string | undefined;
  apiKey: string | undefined;
  notifyUrl: string | undefined;
  controlUrl: string | false;
  fetch: typeof fetch | undefined;
}

const DIGITS = /^[1-9][0-9]{0,18}$/;

export function resolveOptions(options: ConformanceOptions): ResolvedOptions {
  if (!options.baseUrl || !/^https?:\/\//.test(options.baseUrl)) throw new OptionsError("--base-url must be an http(s) URL of the service, e.g. http://127.0.0.1:4010");
  if (!options.appKey) throw new OptionsError("--app-key is required");
  const secrets = [...new Set([options.appSecret, ...(options.appSecrets ?? [])].filter((secret) => secret !== undefined && secret !== ""))];
  if (secrets.length === 0) throw new OptionsError("--app-secret is required (or MOP_APP_SECRET / MOP_APP_SECRETS)");
  if (options.notifyUrl !== undefined && !/^https?:\/\/[^/]/i.test(options.notifyUrl)) throw new OptionsError(`--notify-url must be an http(s) URL, got "${options.notifyUrl}"`);
  if (Boolean(options.receiverTls?.cert) !== Boolean(options.receiverTls?.key)) throw new OptionsError("--receiver-cert and --receiver-key go together");
  for (const id of [...(options.merchantIds ?? []), ...(options.foreignMerchantId ? [options.foreignMerchantId] : [])]) {
    if (!DIGITS.test(id)) throw new OptionsError(`merchant id "${id}" is not a positive integer`);
  }
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new OptionsError("--concurrency must be a positive integer");
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!(timeoutMs > 0)) throw new OptionsError("--timeout must be positive");
  const baseUrl = options.baseUrl.replace(/\/+$/, "").replace(/\/open-api(\/v1)?$/, "");
  return {
    baseUrl,
    appKey: options.appKey,
    appSecret: secrets[0]!,
    appSecrets: secrets,
    basePath: options.basePath ?? "/open-api/v1",
    merchantIds: options.merchantIds ?? [],
    foreignMerchantId: options.foreignMerchantId,
    apiKey: options.apiKey,
    variants: options.variants ?? ["signed", "keyed"],
    include: options.include ?? [],
    exclude: options.exclude ?? [],
    strictHttp: options.strictHttp ?? false,
    concurrency,
    timeoutMs,
    rateLimit: options.rateLimit ?? 0,
    controlUrl: options.controlUrl === undefined ? `${baseUrl}/sandbox` : options.controlUrl,
    notifyUrl: options.notifyUrl,
    receiverHost: options.receiverHost ?? "127.0.0.1",
    receiverPort: options.receiverPort ?? 0,
    receiverTls: options.receiverTls?.cert && options.receiverTls.key ? options.receiverTls : undefined,
    callbackWaitMs: options.callbackWaitMs ?? 20_000,
    fetch: options.fetch,
  };
}
