import { describe, expect, it } from "vitest";
import { SignedErrors } from "../../generated/error-codes.js";
import {
  createMemoryNonceStore,
  precheckForVerification,
  precheckSignedRequest,
  readHeader,
  sign,
  signRequestHeaders,
  verifyPrecheckedRequest,
  verifySignedRequest,
  type NonceStore,
  type RequestHeaders,
  type SigningBody,
  type VerifySignedRequestInput,
} from "../../src/signing/index.js";
import { readSignatureHeaders } from "../../src/signing/headers.js";

const appKey = "demo-app-key";
const appSecret = "demo-app-secret-0123456789";
const otherSecret = "someone-elses-secret-000";
const T = 1718870400;
const body = '{"merchantId":10001,"outTradeNo":"ORD-1"}';
const nowAt = (seconds: number) => () => seconds * 1000;

const secrets: Record<string, string[]> = { [appKey]: [appSecret], "disabled-app": [] };
const secretsFor = (key: string) => secrets[key];

/** Valid lower-case headers (as Node delivers them) for `body` at time T, with overrides. */
function headers(overrides: Record<string, string | string[] | undefined> = {}, signBody: SigningBody = body) {
  const signed = signRequestHeaders({ appKey, appSecret, body: signBody, now: nowAt(T), nonce: "nonce-00000001" });
  return {
    "x-app-key": signed["X-App-Key"],
    "x-timestamp": signed["X-Timestamp"],
    "x-nonce": signed["X-Nonce"],
    "x-sign": signed["X-Sign"],
    "content-type": "application/json",
    ...overrides,
  };
}

function verify(given: Partial<VerifySignedRequestInput>) {
  return verifySignedRequest({ headers: headers(), body, secretsFor, now: nowAt(T), nonceStore: createMemoryNonceStore(), ...given });
}

const hexSign = Buffer.from(sign({ appKey, appSecret, timestamp: T, nonce: "nonce-00000001", body }), "base64").toString("hex");
const goodSign = headers()["x-sign"];

describe("verifySignedRequest accepts", () => {
  it("a correctly signed request, reporting who and which secret", async () => {
    expect(await verify({})).toEqual({ ok: true, appKey, timestamp: T, nonce: "nonce-00000001", secretIndex: 0 });
  });

  it.each<[string, { given: RequestHeaders }]>([
    ["Node's lower-case header names", { given: headers() }],
    ["header names in the source's spelling", { given: { "X-App-Key": appKey, "X-Timestamp": String(T), "X-Nonce": "nonce-00000001", "X-Sign": goodSign } }],
    ["upper-case header names", { given: { "X-APP-KEY": appKey, "X-TIMESTAMP": String(T), "X-NONCE": "nonce-00000001", "X-SIGN": goodSign } }],
    ["single-element array values", { given: { "x-app-key": [appKey], "x-timestamp": [String(T)], "x-nonce": ["nonce-00000001"], "x-sign": [goodSign] } }],
    ["a fetch Headers object", { given: new Headers({ "X-App-Key": appKey, "X-Timestamp": String(T), "X-Nonce": "nonce-00000001", "X-Sign": goodSign }) }],
  ])("%s", async (_name, { given }) => {
    expect(await verify({ headers: given })).toMatchObject({ ok: true });
  });

  it("the body as raw bytes", async () => {
    expect(await verify({ body: Buffer.from(body, "utf8") })).toMatchObject({ ok: true });
  });

  it("an async secret lookup and an async nonce store", async () => {
    const store = createMemoryNonceStore();
    const asyncStore: NonceStore = { useOnce: async (...args) => store.useOnce(...args) };
    expect(await verify({ secretsFor: async (key) => secretsFor(key), nonceStore: asyncStore })).toMatchObject({ ok: true });
    expect(store.size).toBe(1);
  });
});

describe("verifySignedRequest refuses", () => {
  it.each<[string, { given: Partial<VerifySignedRequestInput>; want: { name: keyof typeof SignedErrors; message: RegExp } }]>([
    ["a request without X-App-Key", { given: { headers: headers({ "x-app-key": undefined }) }, want: { name: "SIGNATURE_HEADER_MISSING", message: /header X-App-Key is missing/ } }],
    ["a request with an empty X-Timestamp", { given: { headers: headers({ "x-timestamp": "" }) }, want: { name: "SIGNATURE_HEADER_MISSING", message: /header X-Timestamp is missing or empty/ } }],
    ["a request with a blank X-Nonce", { given: { headers: headers({ "x-nonce": "  " }) }, want: { name: "SIGNATURE_HEADER_MISSING", message: /X-Nonce/ } }],
    ["a request without X-Sign", { given: { headers: headers({ "x-sign": undefined }) }, want: { name: "SIGNATURE_HEADER_MISSING", message: /X-Sign/ } }],
    ["a request with an empty array for X-Sign", { given: { headers: headers({ "x-sign": [] }) }, want: { name: "SIGNATURE_HEADER_MISSING", message: /X-Sign/ } }],
    ["a request with no signature headers, naming all four", { given: { headers: {} }, want: { name: "SIGNATURE_HEADER_MISSING", message: /headers X-App-Key, X-Timestamp, X-Nonce, X-Sign are missing/ } }],
    ["a millisecond timestamp, saying so", { given: { headers: headers({ "x-timestamp": "1718870400123" }) }, want: { name: "TIMESTAMP_MALFORMED", message: /milliseconds/ } }],
    ["a 9-digit timestamp", { given: { headers: headers({ "x-timestamp": "171887040" }) }, want: { name: "TIMESTAMP_MALFORMED", message: /10 ASCII digits/ } }],
    ["a timestamp with a fraction", { given: { headers: headers({ "x-timestamp": "1718870400.5" }) }, want: { name: "TIMESTAMP_MALFORMED", message: /10 ASCII digits/ } }],
    ["a timestamp with a sign", { given: { headers: headers({ "x-timestamp": "+718870400" }) }, want: { name: "TIMESTAMP_MALFORMED", message: /10 ASCII digits/ } }],
    ["a timestamp in non-ASCII digits", { given: { headers: headers({ "x-timestamp": "١٧١٨٨٧٠٤٠٠" }) }, want: { name: "TIMESTAMP_MALFORMED", message: /10 ASCII digits/ } }],
    ["a timestamp sent twice", { given: { headers: headers({ "x-timestamp": [String(T), String(T)] }) }, want: { name: "TIMESTAMP_MALFORMED", message: /10 ASCII digits/ } }],
    ["a 7-character nonce", { given: { headers: headers({ "x-nonce": "abcdefg" }) }, want: { name: "NONCE_MALFORMED", message: /8 to 64 characters.*got 7/ } }],
    ["a 65-character nonce", { given: { headers: headers({ "x-nonce": "a".repeat(65) }) }, want: { name: "NONCE_MALFORMED", message: /got 65/ } }],
    ["a nonce with a dot", { given: { headers: headers({ "x-nonce": "nonce.000001" }) }, want: { name: "NONCE_MALFORMED", message: /"nonce\.000001"/ } }],
    ["a hexadecimal signature, saying so", { given: { headers: headers({ "x-sign": hexSign }) }, want: { name: "SIGNATURE_MALFORMED", message: /looks hexadecimal/ } }],
    ["a Base64url signature", { given: { headers: headers({ "x-sign": Buffer.from(goodSign, "base64").toString("base64url") }) }, want: { name: "SIGNATURE_MALFORMED", message: /Base64url|padding/ } }],
    ["a signature without padding", { given: { headers: headers({ "x-sign": "A".repeat(43) }) }, want: { name: "SIGNATURE_MALFORMED", message: /padding/ } }],
    ["a signature of 16 bytes", { given: { headers: headers({ "x-sign": Buffer.alloc(16).toString("base64") }) }, want: { name: "SIGNATURE_MALFORMED", message: /32-byte/ } }],
    ["a non-canonical Base64 spelling of 32 bytes", { given: { headers: headers({ "x-sign": `${"A".repeat(42)}B=` }) }, want: { name: "SIGNATURE_MALFORMED", message: /canonical/ } }],
    ["a signature sent twice", { given: { headers: headers({ "x-sign": [goodSign, goodSign] }) }, want: { name: "SIGNATURE_MALFORMED", message: /X-Sign/ } }],
    ["an unknown app key", { given: { headers: headers({ "x-app-key": "nobody" }) }, want: { name: "APP_KEY_UNKNOWN", message: /"nobody" is not a known application/ } }],
    ["an app with no valid secret (disabled)", { given: { headers: headers({ "x-app-key": "disabled-app" }) }, want: { name: "APP_KEY_UNKNOWN", message: /disabled/ } }],
    ["a changed body", { given: { body: body.replace("ORD-1", "ORD-2") }, want: { name: "SIGNATURE_MISMATCH", message: /41 body bytes/ } }],
    ["a missing body that was signed", { given: { body: undefined }, want: { name: "SIGNATURE_MISMATCH", message: /0 body bytes/ } }],
    ["a signature made with another secret", { given: { headers: headers({ "x-sign": sign({ appKey, appSecret: otherSecret, timestamp: T, nonce: "nonce-00000001", body }) }) }, want: { name: "SIGNATURE_MISMATCH", message: /any valid secret/ } }],
    ["a signature of another nonce", { given: { headers: headers({ "x-nonce": "nonce-00000002" }) }, want: { name: "SIGNATURE_MISMATCH", message: /X-Sign does not match/ } }],
  ])("%s", async (_name, { given, want }) => {
    const result = await verify(given);
    const entry = SignedErrors[want.name];
    expect(result).toMatchObject({ ok: false, name: want.name, code: entry.code, httpStatus: entry.http });
    expect(result.ok === false && result.message).toMatch(want.message);
  });
});

describe("check order: the first failing check decides", () => {
  const bad = {
    header: { "x-nonce": undefined },
    timestamp: { "x-timestamp": "1718870400000" },
    nonce: { "x-nonce": "bad" },
    sign: { "x-sign": hexSign },
    app: { "x-app-key": "nobody" },
    window: { "x-timestamp": String(T - 301) },
  };
  it.each<[string, { given: Record<string, string | undefined>; want: number }]>([
    ["a missing header before a malformed timestamp", { given: { ...bad.timestamp, ...bad.header }, want: 100001 }],
    ["a malformed timestamp before a malformed nonce", { given: { ...bad.timestamp, ...bad.nonce }, want: 100010 }],
    ["a malformed nonce before a malformed signature", { given: { ...bad.nonce, ...bad.sign }, want: 100011 }],
    ["a malformed signature before an unknown app key", { given: { ...bad.sign, ...bad.app }, want: 100012 }],
    ["an unknown app key before the window", { given: { ...bad.app, ...bad.window }, want: 100002 }],
    ["the window before the signature", { given: { ...bad.window }, want: 100004 }],
  ])("%s", async (_name, { given, want }) => {
    const result = await verify({ headers: headers(given) });
    expect(result.ok === false && result.code).toBe(want);
  });
});

describe("precheckSignedRequest: the checks that need no body", () => {
  const precheck = (given: Record<string, string | string[] | undefined>, now = nowAt(T)) => precheckSignedRequest({ headers: headers(given), secretsFor, now });

  it("passes a request whose signature is wrong, computing no HMAC: the body is still to be read", async () => {
    expect(await precheck({ "x-sign": sign({ appKey, appSecret: otherSecret, timestamp: T, nonce: "nonce-00000001", body }) })).toEqual({ ok: true, appKey, timestamp: T, nonce: "nonce-00000001" });
  });

  it.each<[string, Record<string, string | string[] | undefined>]>([
    ["a missing header", { "x-nonce": undefined }],
    ["a millisecond timestamp", { "x-timestamp": "1718870400123" }],
    ["a malformed nonce", { "x-nonce": "bad" }],
    ["a hexadecimal signature", { "x-sign": hexSign }],
    ["a repeated X-Sign", { "x-sign": [goodSign, goodSign] }],
    ["an unknown app key", { "x-app-key": "nobody" }],
    ["a disabled app", { "x-app-key": "disabled-app" }],
    ["a stale timestamp", { "x-timestamp": String(T - 301) }],
  ])("refuses %s exactly as verifySignedRequest does", async (_name, given) => {
    const early = await precheck(given);
    expect(early.ok).toBe(false);
    expect(early).toEqual(await verify({ headers: headers(given) }));
  });

  it("records no nonce: the same request then verifies", async () => {
    const nonceStore = createMemoryNonceStore();
    expect(await precheck({})).toMatchObject({ ok: true });
    expect(nonceStore.size).toBe(0);
    expect(await verify({ nonceStore })).toMatchObject({ ok: true });
  });

  it("reports a broken secret lookup as INTERNAL_ERROR, never a throw", async () => {
    const result = await precheckSignedRequest({ headers: headers(), secretsFor: () => { throw new Error("database down"); }, now: nowAt(T) });
    expect(result).toMatchObject({ ok: false, name: "INTERNAL_ERROR", cause: new Error("database down") });
  });
});

describe("precheckForVerification then verifyPrecheckedRequest: verifySignedRequest in two halves, nothing checked twice", () => {
  it.each<[string, Record<string, string | string[] | undefined>, SigningBody]>([
    ["a good request", {}, body],
    ["a wrong signature", { "x-sign": sign({ appKey, appSecret: otherSecret, timestamp: T, nonce: "nonce-00000001", body }) }, body],
    ["another body than the one signed", {}, '{"merchantId":10002}'],
    ["an unknown app key", { "x-app-key": "nobody" }, body],
    ["a stale timestamp", { "x-timestamp": String(T - 301) }, body],
  ])("answers %s as verifySignedRequest does", async (_name, given, sent) => {
    let lookups = 0;
    const counted = (key: string) => (lookups++, secretsFor(key));
    const head = await precheckForVerification({ headers: headers(given), secretsFor: counted, now: nowAt(T) });
    const split = head.ok ? await verifyPrecheckedRequest(head, sent, createMemoryNonceStore()) : head;
    expect(lookups).toBeLessThanOrEqual(1);
    expect(split).toEqual(await verify({ headers: headers(given), body: sent }));
  });

  it("records the nonce once, in the second half: a replay of the pair is refused", async () => {
    const nonceStore = createMemoryNonceStore();
    const head = await precheckForVerification({ headers: headers(), secretsFor, now: nowAt(T) });
    if (!head.ok) throw new Error("the precheck failed");
    expect(nonceStore.size).toBe(0);
    expect(await verifyPrecheckedRequest(head, body, nonceStore)).toMatchObject({ ok: true });
    expect(await verifyPrecheckedRequest(head, body, nonceStore)).toMatchObject({ ok: false, name: "NONCE_REUSED" });
  });
});

describe("the four headers are read in one pass, as readHeader reads each", () => {
  it.each<[string, Record<string, unknown>]>([
    ["Node's lower-case names", headers()],
    ["mixed case, one name twice in different cases", { "X-App-Key": appKey, "x-app-key": "second", "X-TIMESTAMP": String(T), "x-Nonce": ["a", "b"], "X-Sign": goodSign }],
    ["arrays, empty arrays and non-strings", { "x-app-key": [appKey, 7], "x-timestamp": [], "x-nonce": 12345678, "x-sign": undefined, host: "example.com" }],
    ["none of them", { host: "example.com", "x-app-keys": "not this one" }],
  ])("%s", (_name, given) => {
    const oneByOne = ["X-App-Key", "X-Timestamp", "X-Nonce", "X-Sign"].map((name) => readHeader(given, name));
    expect(readSignatureHeaders(given)).toEqual(oneByOne);
  });

  it("from a fetch Headers object too", () => {
    const given = new Headers({ "X-App-Key": appKey, "X-Timestamp": String(T), "X-Sign": goodSign });
    expect(readSignatureHeaders(given)).toEqual([appKey, String(T), undefined, goodSign]);
  });
});

describe("timestamp window", () => {
  // The request is signed at `timestamp`; the server's clock reads T.
  it.each<[string, { given: { timestamp: number; nowMs: number; windowSeconds?: number }; want: RegExp | "ok" }]>([
    ["accepts a timestamp exactly 300 s behind", { given: { timestamp: T - 300, nowMs: T * 1000 }, want: "ok" }],
    ["accepts a timestamp exactly 300 s ahead", { given: { timestamp: T + 300, nowMs: T * 1000 }, want: "ok" }],
    ["refuses a timestamp 301 s behind", { given: { timestamp: T - 301, nowMs: T * 1000 }, want: /301 s behind the server's clock \(1718870400\)/ }],
    ["refuses a timestamp 301 s ahead", { given: { timestamp: T + 301, nowMs: T * 1000 }, want: /301 s ahead of the server's clock/ }],
    ["compares whole seconds: 300 s behind at the last millisecond is accepted", { given: { timestamp: T - 300, nowMs: T * 1000 + 999 }, want: "ok" }],
    ["refuses a timestamp a day old", { given: { timestamp: T - 86_400, nowMs: T * 1000 }, want: /86400 s behind/ }],
    ["applies a configured window", { given: { timestamp: T - 61, nowMs: T * 1000, windowSeconds: 60 }, want: /61 s behind.*60 s either way/ }],
  ])("%s", async (_name, { given, want }) => {
    const signed = signRequestHeaders({ appKey, appSecret, body, timestamp: given.timestamp, nonce: "window-nonce-1" });
    const input: Partial<VerifySignedRequestInput> = { headers: signed, now: () => given.nowMs };
    if (given.windowSeconds !== undefined) input.windowSeconds = given.windowSeconds;
    const result = await verify(input);
    if (want === "ok") expect(result).toMatchObject({ ok: true });
    else {
      expect(result).toMatchObject({ ok: false, code: 100004 });
      expect(result.ok === false && result.message).toMatch(want);
    }
  });
});

describe("secret rotation", () => {
  const oldSecret = "demo-app-secret-0123456789";
  const newSecret = "demo-app-secret-rotated-9876543210";
  const signedWith = (secret: string) => signRequestHeaders({ appKey, appSecret: secret, body, now: nowAt(T), nonce: "rotation-nonce" });

  it.each<[string, { given: { valid: string[]; signer: string }; want: { ok: true; secretIndex: number } | { ok: false; code: number } }]>([
    ["accepts the old secret while both are valid", { given: { valid: [oldSecret, newSecret], signer: oldSecret }, want: { ok: true, secretIndex: 0 } }],
    ["accepts the new secret while both are valid", { given: { valid: [oldSecret, newSecret], signer: newSecret }, want: { ok: true, secretIndex: 1 } }],
    ["accepts the new secret after the old one is removed", { given: { valid: [newSecret], signer: newSecret }, want: { ok: true, secretIndex: 0 } }],
    ["refuses the old secret after it is removed", { given: { valid: [newSecret], signer: oldSecret }, want: { ok: false, code: 100003 } }],
    ["ignores empty entries in the secret list", { given: { valid: ["", newSecret], signer: newSecret }, want: { ok: true, secretIndex: 1 } }],
  ])("%s", async (_name, { given, want }) => {
    const result = await verify({ headers: signedWith(given.signer), secretsFor: () => given.valid });
    expect(result).toMatchObject(want);
  });
});

describe("server-side mistakes become INTERNAL_ERROR, never a throw", () => {
  const boom = () => {
    throw new Error("database down");
  };
  it.each<[string, { given: Partial<VerifySignedRequestInput>; want: RegExp }]>([
    ["a parsed body instead of the raw body", { given: { body: { merchantId: 1 } as unknown as string }, want: /raw body/ }],
    ["a secret lookup that throws", { given: { secretsFor: boom }, want: /could not look up the app key/ }],
    ["a secret lookup that rejects", { given: { secretsFor: () => Promise.reject(new Error("timeout")) }, want: /could not look up/ }],
    ["a secret lookup that returns one string instead of a list", { given: { secretsFor: () => appSecret as unknown as string[] }, want: /list of secrets/ }],
    ["no secret lookup", { given: { secretsFor: undefined as unknown as VerifySignedRequestInput["secretsFor"] }, want: /secretsFor/ }],
    ["a nonce store that throws", { given: { nonceStore: { useOnce: boom } }, want: /could not record the nonce/ }],
    ["a nonce store with an unknown answer", { given: { nonceStore: { useOnce: () => "maybe" as "fresh" } }, want: /unexpected answer/ }],
    ["a negative window", { given: { windowSeconds: -1 }, want: /window is misconfigured/ }],
    ["a clock that throws", { given: { now: boom }, want: /clock failed/ }],
  ])("%s", async (_name, { given, want }) => {
    const result = await verify(given);
    expect(result).toMatchObject({ ok: false, name: "INTERNAL_ERROR", code: 100099, httpStatus: 500 });
    expect(result.ok === false && result.message).toMatch(want);
  });

  it("keeps the underlying error as cause for the server's log", async () => {
    const result = await verify({ secretsFor: boom });
    expect(result.ok === false && result.cause).toBeInstanceOf(Error);
  });

  it("refuses garbage input without throwing", async () => {
    await expect(verifySignedRequest(undefined as unknown as VerifySignedRequestInput)).resolves.toMatchObject({ ok: false });
    await expect(verify({ headers: "x-sign: abc" as unknown as RequestHeaders })).resolves.toMatchObject({ ok: false, code: 100001 });
  });
});
