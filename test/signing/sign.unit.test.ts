import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  NONCE_PATTERN,
  SIGN_PATTERN,
  SigningInputError,
  sign,
  signRequestHeaders,
  stringToSign,
  stringToSignBytes,
  type SignInput,
  type SignRequestInput,
} from "../../src/signing/index.js";

const appKey = "demo-app-key";
const appSecret = "demo-app-secret-0123456789";
const timestamp = "1718870400";
const nonce = "n0nce-8f3a2c1d";

function hmacBase64(message: Buffer, secret = appSecret): string {
  return createHmac("sha256", secret).update(message).digest("base64");
}

describe("stringToSign", () => {
  it.each<[string, { given: Parameters<typeof stringToSign>; want: string }]>([
    ["is appKey + timestamp + nonce with no body", { given: [appKey, timestamp, nonce, undefined], want: `${appKey}${timestamp}${nonce}` }],
    ["treats an empty body like no body", { given: [appKey, timestamp, nonce, ""], want: `${appKey}${timestamp}${nonce}` }],
    ["appends the body with no separator", { given: [appKey, timestamp, nonce, '{"a":1}'], want: `${appKey}${timestamp}${nonce}{"a":1}` }],
    ["writes a numeric timestamp as its decimal text", { given: [appKey, 1718870400, nonce, ""], want: `${appKey}1718870400${nonce}` }],
    ["decodes a byte body as UTF-8 for display", { given: [appKey, timestamp, nonce, Buffer.from("价格", "utf8")], want: `${appKey}${timestamp}${nonce}价格` }],
  ])("%s", (_name, { given, want }) => {
    expect(stringToSign(...given)).toBe(want);
  });
});

describe("sign", () => {
  it.each<[string, { given: SignInput; want: Buffer }]>([
    ["signs an absent body as the empty string", { given: { appKey, appSecret, timestamp, nonce }, want: Buffer.from(appKey + timestamp + nonce) }],
    ["signs a string body as its UTF-8 bytes", { given: { appKey, appSecret, timestamp, nonce, body: "咖啡☕" }, want: Buffer.from(`${appKey}${timestamp}${nonce}咖啡☕`, "utf8") }],
    [
      "signs the exact bytes of a Buffer body, even when they are not valid UTF-8",
      { given: { appKey, appSecret, timestamp, nonce, body: Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]) }, want: Buffer.concat([Buffer.from(appKey + timestamp + nonce), Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d])]) },
    ],
    [
      "signs only the viewed bytes of a Uint8Array that is a slice of a larger buffer",
      { given: { appKey, appSecret, timestamp, nonce, body: new Uint8Array(Buffer.from('xx{"a":1}yy')).subarray(2, 9) }, want: Buffer.from(`${appKey}${timestamp}${nonce}{"a":1}`) },
    ],
  ])("%s", (_name, { given, want }) => {
    const signature = sign(given);
    expect(signature).toBe(hmacBase64(want));
    expect(signature).toMatch(SIGN_PATTERN);
  });

  it("gives a different signature when invalid UTF-8 bytes would be re-encoded through a string", () => {
    const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
    expect(sign({ appKey, appSecret, timestamp, nonce, body: bytes })).not.toBe(
      sign({ appKey, appSecret, timestamp, nonce, body: bytes.toString("utf8") }),
    );
  });

  it("stringToSignBytes is exactly what is HMAC'd", () => {
    const body = Buffer.from([0x00, 0xc3, 0x28]);
    expect(sign({ appKey, appSecret, timestamp, nonce, body })).toBe(hmacBase64(stringToSignBytes(appKey, timestamp, nonce, body)));
  });

  it("uses the secret as UTF-8 key bytes", () => {
    const secret = "秘密-secret-ü";
    expect(sign({ appKey, appSecret: secret, timestamp, nonce })).toBe(
      createHmac("sha256", Buffer.from(secret, "utf8")).update(appKey + timestamp + nonce).digest("base64"),
    );
  });
});

describe("signRequestHeaders", () => {
  const now = () => 1_718_870_400_999;

  it.each<[string, { given: SignRequestInput; want: Record<string, string> }]>([
    [
      "takes the timestamp from the clock in whole seconds",
      { given: { appKey, appSecret, now, nonce }, want: { "X-App-Key": appKey, "X-Timestamp": "1718870400", "X-Nonce": nonce } },
    ],
    [
      "uses a given timestamp instead of the clock",
      { given: { appKey, appSecret, now, nonce, timestamp: 1718870123 }, want: { "X-App-Key": appKey, "X-Timestamp": "1718870123", "X-Nonce": nonce } },
    ],
  ])("%s", (_name, { given, want }) => {
    const headers = signRequestHeaders(given);
    expect(headers).toMatchObject(want);
    expect(headers["X-Sign"]).toBe(
      sign({ appKey, appSecret, timestamp: headers["X-Timestamp"], nonce: headers["X-Nonce"], body: given.body }),
    );
  });

  it("signs the body it is given", () => {
    const body = '{"merchantId":10001}';
    const headers = signRequestHeaders({ appKey, appSecret, body, now, nonce });
    expect(headers["X-Sign"]).toBe(hmacBase64(Buffer.from(appKey + "1718870400" + nonce + body)));
  });

  it("creates a fresh UUID nonce that fits the nonce rule when none is given", () => {
    const first = signRequestHeaders({ appKey, appSecret, now });
    const second = signRequestHeaders({ appKey, appSecret, now });
    expect(first["X-Nonce"]).toMatch(NONCE_PATTERN);
    expect(first["X-Nonce"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(first["X-Nonce"]).not.toBe(second["X-Nonce"]);
  });

  it("uses the real clock by default", () => {
    const before = Math.floor(Date.now() / 1000);
    const headers = signRequestHeaders({ appKey, appSecret });
    expect(Number(headers["X-Timestamp"])).toBeGreaterThanOrEqual(before);
    expect(Number(headers["X-Timestamp"])).toBeLessThanOrEqual(before + 2);
  });
});

describe("bad input to the signer", () => {
  const base = { appKey, appSecret, timestamp, nonce };
  it.each<[string, { given: () => unknown; want: { field: string; message: RegExp } }]>([
    ["refuses a missing appSecret", { given: () => sign({ ...base, appSecret: undefined as unknown as string }), want: { field: "appSecret", message: /appSecret must be a non-empty string/ } }],
    ["refuses an empty appSecret", { given: () => sign({ ...base, appSecret: "" }), want: { field: "appSecret", message: /appSecret must not be empty/ } }],
    ["refuses an empty appKey", { given: () => sign({ ...base, appKey: "" }), want: { field: "appKey", message: /appKey must not be empty/ } }],
    ["refuses a missing appKey", { given: () => sign({ ...base, appKey: undefined as unknown as string }), want: { field: "appKey", message: /appKey/ } }],
    ["refuses a parsed object as body", { given: () => sign({ ...base, body: { a: 1 } as unknown as string }), want: { field: "body", message: /raw request body.*got an object/ } }],
    ["refuses null as body", { given: () => sign({ ...base, body: null as unknown as string }), want: { field: "body", message: /got null/ } }],
    ["refuses a number as body", { given: () => sign({ ...base, body: 42 as unknown as string }), want: { field: "body", message: /got number/ } }],
    ["refuses a fractional timestamp", { given: () => sign({ ...base, timestamp: 1718870400.5 }), want: { field: "timestamp", message: /whole number of seconds/ } }],
    ["refuses no input at all", { given: () => sign(undefined as unknown as SignInput), want: { field: "sign input", message: /must be an object/ } }],
    ["refuses an empty secret when signing headers", { given: () => signRequestHeaders({ appKey, appSecret: "" }), want: { field: "appSecret", message: /appSecret/ } }],
    ["refuses a body of the wrong type when signing headers", { given: () => signRequestHeaders({ appKey, appSecret, body: [1] as unknown as string }), want: { field: "body", message: /got an array/ } }],
    ["refuses a millisecond timestamp when signing headers", { given: () => signRequestHeaders({ appKey, appSecret, timestamp: "1718870400123" }), want: { field: "timestamp", message: /milliseconds/ } }],
    ["refuses a clock that returns seconds", { given: () => signRequestHeaders({ appKey, appSecret, now: () => 1718870400 }), want: { field: "now", message: /epoch milliseconds/ } }],
    ["refuses a clock that returns NaN", { given: () => signRequestHeaders({ appKey, appSecret, now: () => Number.NaN }), want: { field: "now", message: /finite number/ } }],
    ["refuses a nonce that breaks the nonce rule", { given: () => signRequestHeaders({ appKey, appSecret, nonce: "short" }), want: { field: "nonce", message: /8 to 64 characters/ } }],
    ["refuses a nonce with a space", { given: () => signRequestHeaders({ appKey, appSecret, nonce: "has a space" }), want: { field: "nonce", message: /8 to 64 characters/ } }],
  ])("%s", (_name, { given, want }) => {
    let thrown: unknown;
    try {
      given();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SigningInputError);
    expect(thrown).not.toBeInstanceOf(TypeError);
    expect((thrown as SigningInputError).field).toBe(want.field);
    expect((thrown as SigningInputError).name).toBe("SigningInputError");
    expect((thrown as SigningInputError).message).toMatch(want.message);
  });
});
