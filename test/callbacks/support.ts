// Signed callback deliveries for the tests, built from the spec's own webhook examples.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { signRequestHeaders } from "../../src/signing/index.js";
import { packageRoot } from "../../src/util/package-root.js";

export const appKey = "demo-app-key";
export const appSecret = "demo-app-secret-0123456789";
/** A fixed clock: 2026-11-22T02:17:10Z. */
export const NOW_MS = 1_795_400_230_000;
export const now = () => NOW_MS;

type Json = Record<string, any>;

/** The spec's example payload of each webhook, by webhook name. */
export function webhookExamples(): Record<string, Json> {
  const spec = JSON.parse(readFileSync(join(packageRoot(), "generated", "signed.openapi.json"), "utf8")) as Json;
  const examples: Record<string, Json> = {};
  for (const [name, item] of Object.entries(spec.webhooks as Json)) {
    const first = Object.values(item.post.requestBody.content["application/json"].examples as Json)[0] as Json;
    examples[name] = first.value as Json;
  }
  return examples;
}

let counter = 0;
/** A fresh valid nonce per delivery attempt. */
export const freshNonce = () => `nonce-${String(++counter).padStart(8, "0")}-${process.pid}`;

export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** Signs a delivery of `body` as the platform would; options reproduce faulty senders. */
export function deliver(
  body: string,
  options: { secret?: string; key?: string; atMs?: number; nonce?: string } = {},
): Delivery {
  const signed = signRequestHeaders({
    appKey: options.key ?? appKey,
    appSecret: options.secret ?? appSecret,
    body,
    now: () => options.atMs ?? NOW_MS,
    nonce: options.nonce ?? freshNonce(),
  });
  return { headers: { ...signed, "Content-Type": "application/json" }, body };
}

/** Signature headers over raw bytes, for bodies that are not text. */
export function signBytes(bytes: Uint8Array): Record<string, string> {
  return { ...signRequestHeaders({ appKey, appSecret, body: bytes, now, nonce: freshNonce() }) };
}
