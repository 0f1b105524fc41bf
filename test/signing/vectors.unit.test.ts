// The published vectors (vectors/signing-vectors.json) are the contract other languages test
// against: our signer must reproduce them and our verifier must judge them as they say.
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  createMemoryNonceStore,
  sign,
  stringToSign,
  stringToSignBytes,
  verifySignedRequest,
} from "../../src/signing/index.js";

interface VectorCase {
  name: string;
  description: string;
  method: string;
  path: string;
  appKey: string;
  appSecret: string;
  timestamp: string;
  nonce: string;
  body: string;
  stringToSign: string;
  expectedSign: string;
}
interface ValidCase extends VectorCase {
  bodyUtf8Bytes: number;
}
interface WrongCase extends VectorCase {
  wrongStringToSign: string;
  wrongSign: string;
  wrongSecret?: string;
  wrongTimestamp?: string;
  whyItFails: string;
  expectedCode: number;
}
interface VectorFile {
  valid: ValidCase[];
  wrongVariants: WrongCase[];
}

const vectors = JSON.parse(
  readFileSync(new URL("../../vectors/signing-vectors.json", import.meta.url), "utf8"),
) as VectorFile;

function verifyAsServer(vector: VectorCase, headers: { timestamp: string; sign: string }) {
  return verifySignedRequest({
    headers: { "x-app-key": vector.appKey, "x-timestamp": headers.timestamp, "x-nonce": vector.nonce, "x-sign": headers.sign },
    body: vector.body,
    secretsFor: (appKey) => (appKey === vector.appKey ? [vector.appSecret] : undefined),
    now: () => Number(vector.timestamp) * 1000,
    nonceStore: createMemoryNonceStore(),
  });
}

describe("the vector file", () => {
  it("has the cases the contract promises", () => {
    expect(vectors.valid.length + vectors.wrongVariants.length).toBeGreaterThanOrEqual(14);
    const names = [...vectors.valid, ...vectors.wrongVariants].map((vector) => vector.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        "get-empty-body",
        "post-ascii-json",
        "post-utf8-chinese-and-emoji",
        "post-json-escapes",
        "post-long-body",
        "separators-between-fields",
        "hex-instead-of-base64",
        "millisecond-timestamp",
        "reordered-fields",
        "changed-body-text",
        "wrong-secret",
        "reset-secret",
      ]),
    );
    const long = vectors.valid.find((vector) => vector.name === "post-long-body");
    expect(Buffer.byteLength(long?.body ?? "", "utf8")).toBeGreaterThan(4096);
  });

  // Independent of src/signing: recomputes every value with node:crypto directly.
  it.each(vectors.valid.map((vector) => [vector.name, vector] as const))(
    "%s: stored values are the HMAC-SHA256 of the fields",
    (_name, vector) => {
      expect(vector.stringToSign).toBe(vector.appKey + vector.timestamp + vector.nonce + vector.body);
      expect(Buffer.byteLength(vector.body, "utf8")).toBe(vector.bodyUtf8Bytes);
      const digest = createHmac("sha256", vector.appSecret).update(vector.stringToSign, "utf8").digest("base64");
      expect(vector.expectedSign).toBe(digest);
    },
  );

  it.each(vectors.wrongVariants.map((vector) => [vector.name, vector] as const))(
    "%s: wrongSign is what the faulty client computes",
    (_name, vector) => {
      const digest = createHmac("sha256", vector.wrongSecret ?? vector.appSecret).update(vector.wrongStringToSign, "utf8").digest();
      const encodings = [digest.toString("base64"), digest.toString("hex"), digest.toString("base64url")];
      expect(encodings).toContain(vector.wrongSign);
      expect(vector.wrongSign).not.toBe(vector.expectedSign);
    },
  );
});

describe("valid vectors", () => {
  it.each(vectors.valid.map((vector) => [vector.name, vector] as const))("%s: signs to expectedSign", (_name, vector) => {
    const { appKey, appSecret, timestamp, nonce, body } = vector;
    expect(stringToSign(appKey, timestamp, nonce, body)).toBe(vector.stringToSign);
    expect(stringToSignBytes(appKey, timestamp, nonce, body)).toEqual(Buffer.from(vector.stringToSign, "utf8"));
    expect(sign({ appKey, appSecret, timestamp, nonce, body })).toBe(vector.expectedSign);
    // The same body as raw bytes signs the same.
    expect(sign({ appKey, appSecret, timestamp, nonce, body: Buffer.from(body, "utf8") })).toBe(vector.expectedSign);
  });

  it.each(vectors.valid.map((vector) => [vector.name, vector] as const))("%s: verifies", async (_name, vector) => {
    const result = await verifyAsServer(vector, { timestamp: vector.timestamp, sign: vector.expectedSign });
    expect(result).toEqual({ ok: true, appKey: vector.appKey, timestamp: Number(vector.timestamp), nonce: vector.nonce, secretIndex: 0 });
  });
});

describe("wrong variants", () => {
  it.each(vectors.wrongVariants.map((vector) => [vector.name, vector] as const))(
    "%s: our signer does not produce the faulty signature",
    (_name, vector) => {
      const { appKey, appSecret, timestamp, nonce, body } = vector;
      expect(stringToSign(appKey, timestamp, nonce, body)).toBe(vector.stringToSign);
      expect(sign({ appKey, appSecret, timestamp, nonce, body })).toBe(vector.expectedSign);
    },
  );

  it.each(vectors.wrongVariants.map((vector) => [vector.name, vector] as const))(
    "%s: is refused with expectedCode",
    async (_name, vector) => {
      const result = await verifyAsServer(vector, { timestamp: vector.wrongTimestamp ?? vector.timestamp, sign: vector.wrongSign });
      expect(result.ok).toBe(false);
      expect(result.ok === false && result.code).toBe(vector.expectedCode);
    },
  );
});
