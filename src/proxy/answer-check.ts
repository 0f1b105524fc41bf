// Judges an upstream answer the way `mop check` judges it (one judge for both), on the decoded
// body: the bytes passed on stay exactly as the target sent them, compressed or not.
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { judgeAnswer, type ReceivedAnswer, type SpecSchemas } from "../contract/index.js";
import { parseJsonLossless } from "../json/index.js";
import type { HeaderPairs } from "./headers.js";
import type { Variant } from "./request-target.js";

const DECODED_LIMIT = 16 * 1024 * 1024;

function decoded(body: Buffer, encoding: string | undefined): Buffer | string {
  const options = { maxOutputLength: DECODED_LIMIT };
  try {
    switch ((encoding ?? "identity").trim().toLowerCase()) {
      case "identity":
        return body;
      case "gzip":
      case "x-gzip":
        return gunzipSync(body, options);
      case "deflate":
        return inflateSync(body, options);
      case "br":
        return brotliDecompressSync(body, options);
      default:
        return `content encoding "${encoding}" cannot be read`;
    }
  } catch (error) {
    return `the ${encoding} body does not decode: ${(error as Error).message}`;
  }
}

export function checkAnswer(schemas: SpecSchemas, variant: Variant, operationId: string, status: number, pairs: HeaderPairs, body: Buffer, strictHttp: boolean): string[] {
  const headers: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
  }
  const text = decoded(body, headers["content-encoding"]);
  if (typeof text === "string") return [text];
  const response: ReceivedAnswer = { status, headers, bodyText: text.toString("utf8") };
  try {
    response.json = parseJsonLossless(response.bodyText);
  } catch {
    // judged as "not a JSON envelope"
  }
  return judgeAnswer(schemas, variant, operationId, { response }, strictHttp).problems;
}
