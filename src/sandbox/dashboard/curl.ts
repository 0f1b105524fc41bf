// "Copy as curl" for a recorded request. A signed request is never copied with its own
// signature headers: the nonce is spent (or the request was refused) and the dashboard does
// not show X-Sign. Instead the command asks `mop sign --curl` for fresh headers, with the
// secret from the developer's environment ($MOP_APP_SECRET), never from the page. A key-based
// request takes its key from $MOP_API_KEY the same way.
import type { KeptRequest } from "./recorder.js";

/** One word for POSIX shells: inside single quotes only ' itself needs care. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function contentTypeOf(kept: KeptRequest): string | undefined {
  return kept.headers.find(([name]) => name.toLowerCase() === "content-type")?.[1];
}

/** The command, or why there is none (a body the dashboard did not keep whole). */
export function curlCommand(kept: KeptRequest, origin: string): { command: string } | { unavailable: string } {
  const body = kept.requestBody;
  if (body.kind === "kept" && body.truncated) return { unavailable: `the body (${body.bytes} bytes) is longer than the dashboard keeps; send it from a file` };
  if (body.kind === "not-read") return { unavailable: "the request was refused before its body was read, so the dashboard does not have it" };
  const url = `${origin}${kept.url}`;
  const text = body.kind === "kept" ? body.text : undefined;
  if (kept.area === "signed") {
    const sign = [
      "npx mop sign",
      `--app-key ${shellQuote(kept.appKey ?? "demo-app-key")}`,
      '--app-secret "$MOP_APP_SECRET"',
      `--method ${shellQuote(kept.method)}`,
      ...(text === undefined ? [] : [`--body ${shellQuote(text)}`]),
      `--curl ${shellQuote(url)}`,
    ].join(" ");
    return { command: `# fresh signature headers from mop sign (the secret from your environment)\neval "$(${sign})"\n` };
  }
  const parts = [`curl -sS -X ${kept.method} ${shellQuote(url)}`];
  if (kept.area === "keyed") parts.push('-H "Authorization: Bearer $MOP_API_KEY"');
  const contentType = contentTypeOf(kept);
  if (contentType !== undefined) parts.push(`-H ${shellQuote(`Content-Type: ${contentType}`)}`);
  if (text !== undefined) parts.push(`--data-binary ${shellQuote(text)}`);
  return { command: `${parts.join(" \\\n  ")}\n` };
}
