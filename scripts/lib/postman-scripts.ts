// The JavaScript the Postman collection runs (Postman's and newman's script sandbox): the
// collection-level pre-request script that signs, the collection-level test that checks every
// envelope, and the per-request tests of the "Pay an order" folder. Kept as source text here so
// that the generator writes it into the collection as Postman's `exec` lines.

export interface AuthFailureCodes {
  /** Codes of the signed interface that mean "the signature headers were refused" (HTTP 401 in the registry). */
  signed: number[];
  /** The same for the key-based interface. */
  keyed: number[];
}

/** Signs every request of the signed interface over the exact body it sends; Bearer key for /v1. */
export function preRequestScript(): string[] {
  return `// Merchant Open Platform: signs every request of the signed interface (/open-api/...) and sets the
// API key on the key-based one (/v1/...). Generated from the contract; see docs/signing.md.
// One block, so that its names never meet those of another script run in the same sandbox.
{
const crypto = require("crypto-js");
const path = "/" + pm.request.url.path.join("/");
const method = pm.request.method.toUpperCase();
const raw = pm.request.body && pm.request.body.mode === "raw" ? pm.request.body.raw || "" : "";
// A request this script cannot send correctly is not sent at all (the error says why).
const refuse = (message) => {
  pm.test("the request can be sent as the contract says", () => {
    throw new Error(message);
  });
  if (pm.execution && typeof pm.execution.skipRequest === "function") pm.execution.skipRequest();
  throw new Error(message);
};
if (pm.request.body && pm.request.body.mode && pm.request.body.mode !== "raw" && !pm.request.body.isEmpty()) {
  refuse("The Merchant Open Platform takes JSON bodies only: set the body to raw JSON.");
}
if ((method === "GET" || method === "HEAD") && raw !== "") {
  // An operation without a request body refuses any body (100009), and a GET body would be signed.
  refuse(method + " " + path + " carries a body: remove it (a GET is signed over the empty string).");
}
const variable = (name) => {
  const value = pm.variables.get(name);
  if (value === undefined || value === null || String(value) === "") {
    refuse("Set the variable " + name + " (select the Merchant Open Platform environment, or add it).");
  }
  return String(value);
};

if (/^\\/open-api(\\/|$)/.test(path)) {
  const appKey = variable("appKey");
  const appSecret = variable("appSecret");
  // The body as it will be sent: variables resolved now and written back, so that the bytes
  // signed are the bytes sent (Postman would otherwise resolve them again, after this script).
  const body = raw === "" ? "" : pm.variables.replaceIn(raw);
  if (body !== raw) pm.request.body.update({ mode: "raw", raw: body, options: { raw: { language: "json" } } });
  const timestamp = String(Math.floor(Date.now() / 1000)); // seconds: 10 digits, never milliseconds
  const nonce = pm.variables.replaceIn("{{$guid}}"); // fresh for every request, 36 characters of A-Z a-z 0-9 -
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(nonce)) throw new Error("could not make a nonce: " + nonce);
  // HMAC-SHA256 over the UTF-8 bytes of appKey + timestamp + nonce + body, no separators; standard padded Base64.
  const signature = crypto.HmacSHA256(crypto.enc.Utf8.parse(appKey + timestamp + nonce + body), crypto.enc.Utf8.parse(appSecret));
  pm.request.headers.upsert({ key: "X-App-Key", value: appKey });
  pm.request.headers.upsert({ key: "X-Timestamp", value: timestamp });
  pm.request.headers.upsert({ key: "X-Nonce", value: nonce });
  pm.request.headers.upsert({ key: "X-Sign", value: crypto.enc.Base64.stringify(signature) });
} else if (/^\\/v1(\\/|$)/.test(path)) {
  pm.request.headers.upsert({ key: "Authorization", value: "Bearer " + variable("apiKey") });
}
}
`.split("\n");
}

/** Every answer is the interface's envelope, and a signed request's signature was accepted. */
export function collectionTestScript(codes: AuthFailureCodes): string[] {
  return `// Every answer is the envelope of its interface. Read from the text: pm.response.json() parses
// with JSON.parse, which rounds integers above 2^53 (order ids are such integers).
{
const path = "/" + pm.request.url.path.join("/");
const keyed = /^\\/v1(\\/|$)/.test(path);
const signed = /^\\/open-api(\\/|$)/.test(path);
const text = pm.response.text();
let envelope;
pm.test("answers the JSON envelope {code, " + (keyed ? "message" : "msg") + ", data}", () => {
  envelope = JSON.parse(text);
  pm.expect(envelope).to.be.an("object");
  pm.expect(envelope.code).to.be.a("number");
  pm.expect(envelope[keyed ? "message" : "msg"]).to.be.a("string");
  pm.expect(envelope).to.have.property("data");
});
if (signed && envelope) {
  pm.test("the signature was accepted", () => pm.expect(${JSON.stringify(codes.signed)}, envelope.msg).to.not.include(envelope.code));
}
if (keyed && envelope) {
  pm.test("the API key was accepted", () => pm.expect(${JSON.stringify(codes.keyed)}, envelope.message).to.not.include(envelope.code));
}
}
`.split("\n");
}

/** What a step of the "Pay an order" folder checks and keeps. */
export interface FlowExpectation {
  /** Envelope code of success: 0 on the signed interface and the control API. */
  successCode: number;
  /** Collection variables set from an integer of the answer, read from its text: variable → JSON key. */
  captureIntegers?: Record<string, string>;
  /** Collection variables set from a string of the answer: variable → JSON key. */
  captureStrings?: Record<string, string>;
  /** JSON keys whose integer must equal a variable, compared as text: key → variable. */
  sameIntegers?: Record<string, string>;
  /** Fields of `data` (small values, safe to parse) and what they must be. */
  dataEquals?: Record<string, string | number>;
}

/** The per-request test of a flow step: success code, ids kept exactly as their digits. */
export function flowTestScript(expect: FlowExpectation): string[] {
  const lines = [
    "{",
    "// Ids are read from the response text as digits: pm.response.json() would round those above 2^53.",
    "const text = pm.response.text();",
    "const integerAt = (key) => {",
    "  const match = new RegExp('\"' + key + '\"\\\\s*:\\\\s*(-?[0-9]+)').exec(text);",
    "  return match ? match[1] : undefined;",
    "};",
    "const stringAt = (key) => {",
    "  const match = new RegExp('\"' + key + '\"\\\\s*:\\\\s*\"([^\"\\\\\\\\]*)\"').exec(text);",
    "  return match ? match[1] : undefined;",
    "};",
    "const envelope = JSON.parse(text); // code, msg and small fields only",
    `pm.test("succeeds (code ${expect.successCode})", () => pm.expect(envelope.code, envelope.msg || envelope.message).to.eql(${expect.successCode}));`,
    `if (envelope.code !== ${expect.successCode}) pm.execution.setNextRequest(null); // the next steps need this one`,
  ];
  for (const [variable, key] of Object.entries(expect.captureIntegers ?? {})) {
    lines.push(
      `pm.test("answers ${key} as an integer", () => pm.expect(integerAt(${JSON.stringify(key)})).to.match(/^-?[0-9]+$/));`,
      `pm.collectionVariables.set(${JSON.stringify(variable)}, integerAt(${JSON.stringify(key)}));`,
    );
  }
  for (const [variable, key] of Object.entries(expect.captureStrings ?? {})) {
    lines.push(
      `pm.test("answers ${key}", () => pm.expect(stringAt(${JSON.stringify(key)})).to.be.a("string"));`,
      `pm.collectionVariables.set(${JSON.stringify(variable)}, stringAt(${JSON.stringify(key)}));`,
    );
  }
  for (const [key, variable] of Object.entries(expect.sameIntegers ?? {})) {
    lines.push(`pm.test("${key} is {{${variable}}}, digit for digit", () => pm.expect(integerAt(${JSON.stringify(key)})).to.eql(pm.variables.get(${JSON.stringify(variable)})));`);
  }
  for (const [field, value] of Object.entries(expect.dataEquals ?? {})) {
    lines.push(`pm.test("data.${field} is ${value}", () => pm.expect(envelope.data.${field}).to.eql(${JSON.stringify(value)}));`);
  }
  lines.push("}");
  return lines;
}
