// `mop sign`: prints the signature headers for one request, so a developer can call the API
// by hand (curl, Postman) or compare against their own signing code. The secret is taken as
// input only; it never appears in any output.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { SigningInputError, signRequestHeaders, stringToSign, type SignedRequestHeaders } from "../signing/index.js";
import { UsageError } from "./errors.js";
import type { Subcommand } from "./io.js";

const USAGE = `Usage: mop sign --app-key KEY --app-secret SECRET [options]

Prints the four signature headers (X-App-Key, X-Timestamp, X-Nonce, X-Sign) of one
request to the signed open interface, and the string that was signed.

Options:
  --app-key KEY        X-App-Key (required)
  --app-secret SECRET  the app's secret (required; never printed; note that it is
                       visible in your shell history and the process list)
  --timestamp T        X-Timestamp in Unix seconds, 10 digits (default: now)
  --nonce N            X-Nonce, 8 to 64 of A-Z a-z 0-9 _ - (default: a random UUID)
  --body TEXT          the request body exactly as it will be sent
  --body-file FILE     the request body read from FILE as raw bytes
  --json               print {"headers": {...}, "stringToSign": "..."} instead
  --curl URL           print a curl command for URL, ready to paste
  --method M           HTTP method for --curl (default: POST with a body, GET without)
  -h, --help           show this help

The path and query string are not signed; only the body is.
`;

const OPTIONS = {
  "app-key": { type: "string" },
  "app-secret": { type: "string" },
  timestamp: { type: "string" },
  nonce: { type: "string" },
  body: { type: "string" },
  "body-file": { type: "string" },
  json: { type: "boolean" },
  curl: { type: "string" },
  method: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;


/** Quotes one word for POSIX shells: inside single quotes only ' itself needs care. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** True when bytes can be printed as text and pasted into a shell unchanged. */
function isPrintableUtf8(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

interface Body {
  bytes: Buffer;
  file?: string;
}

async function readBody(text: string | undefined, file: string | undefined): Promise<Body | undefined> {
  if (text !== undefined && file !== undefined) throw new UsageError("give either --body or --body-file, not both");
  if (file !== undefined) {
    try {
      return { bytes: await readFile(file), file };
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new UsageError(`cannot read --body-file ${JSON.stringify(file)} (${reason})`);
    }
  }
  return text === undefined ? undefined : { bytes: Buffer.from(text, "utf8") };
}

function curlCommand(url: string, method: string | undefined, headers: SignedRequestHeaders, body: Body | undefined): string {
  const hasBody = body !== undefined && body.bytes.length > 0;
  const verb = method ?? (hasBody ? "POST" : undefined);
  const parts = [verb === undefined ? `curl -sS ${shellQuote(url)}` : `curl -sS -X ${verb} ${shellQuote(url)}`];
  if (hasBody) parts.push(`-H ${shellQuote("Content-Type: application/json")}`);
  for (const [name, value] of Object.entries(headers)) parts.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (hasBody) {
    // Bytes that cannot travel through text (NUL, invalid UTF-8) are sent from the file itself.
    const data = isPrintableUtf8(body.bytes) || body.file === undefined ? shellQuote(body.bytes.toString("utf8")) : shellQuote(`@${body.file}`);
    parts.push(`--data-binary ${data}`);
  }
  return `${parts.join(" \\\n  ")}\n`;
}

export const signCommand: Subcommand = async (args, io) => {
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
  const appKey = values["app-key"];
  const appSecret = values["app-secret"];
  if (!appKey) throw new UsageError("--app-key is required");
  if (!appSecret) throw new UsageError("--app-secret is required");
  if (values.method !== undefined && values.curl === undefined) throw new UsageError("--method applies only with --curl");
  const method = values.method?.toUpperCase();
  if (method !== undefined && !/^[A-Z]+$/.test(method)) throw new UsageError(`--method must be an HTTP method such as GET or POST, got ${JSON.stringify(values.method)}`);

  const body = await readBody(values.body, values["body-file"]);
  let headers: SignedRequestHeaders;
  try {
    headers = signRequestHeaders({ appKey, appSecret, body: body?.bytes, timestamp: values.timestamp, nonce: values.nonce });
  } catch (error) {
    if (error instanceof SigningInputError) throw new UsageError(`--${error.field}: ${error.message}`);
    throw error;
  }
  const signed = stringToSign(headers["X-App-Key"], headers["X-Timestamp"], headers["X-Nonce"], body?.bytes);
  if (body && !isPrintableUtf8(body.bytes)) {
    io.stderr("mop sign: note: the body is not printable UTF-8; the string to sign shown is approximate, the signature covers the exact bytes\n");
  }
  const curl = values.curl === undefined ? undefined : curlCommand(values.curl, method, headers, body);

  if (values.json) {
    io.stdout(`${JSON.stringify({ headers, stringToSign: signed, ...(curl === undefined ? {} : { curl }) }, null, 2)}\n`);
  } else if (curl !== undefined) {
    io.stdout(curl);
  } else {
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
    // JSON-quoted so a body with newlines stays on one line and stays exact.
    lines.push(`String-To-Sign: ${JSON.stringify(signed)}`);
    io.stdout(`${lines.join("\n")}\n`);
  }
  return 0;
};
