import fc from "fast-check";
import { isInteger, parse as parseExact } from "lossless-json";
import { describe, expect, it } from "vitest";
import { JsonStructureError, MAX_JSON_DEPTH, parseJsonLossless, stringifyJson, withBigIntsAsNumbers } from "../../src/json/index.js";

describe("parseJsonLossless", () => {
  it.each<[string, string, unknown]>([
    ["a safe integer as a number", "9007199254740991", 9007199254740991],
    ["the negative safe limit as a number", "-9007199254740991", -9007199254740991],
    ["2^53 + 1 as an exact bigint", "9007199254740993", 9007199254740993n],
    ["int64 max as an exact bigint", "9223372036854775807", 9223372036854775807n],
    ["int64 min as an exact bigint", "-9223372036854775808", -9223372036854775808n],
    ["a decimal as a number", "31.2304", 31.2304],
    ["an exponent as a number", "1.5e3", 1500],
    ["zero", "0", 0],
  ])("reads %s", (_name, text, want) => {
    expect(parseJsonLossless(text)).toBe(want);
  });

  it("reads nested ids exactly and leaves everything else as JSON.parse would", () => {
    const text = '{"id":9223372036854775807,"list":[{"id":1},{"id":9007199254740993}],"name":"咖啡","ok":true,"none":null}';
    expect(parseJsonLossless(text)).toEqual({
      id: 9223372036854775807n,
      list: [{ id: 1 }, { id: 9007199254740993n }],
      name: "咖啡",
      ok: true,
      none: null,
    });
  });


  it("treats __proto__ as an ordinary key, as JSON.parse does", () => {
    const parsed = parseJsonLossless('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(["__proto__"]);
  });

  it.each(["", "{", "<html>", "{'a':1}", "[1,]", "NaN"])("throws a SyntaxError for %j", (text) => {
    expect(() => parseJsonLossless(text)).toThrow(SyntaxError);
  });
});

describe("stringifyJson", () => {
  it("writes bigints as their exact digits, compactly", () => {
    expect(stringifyJson({ merchantId: 9223372036854775807n, ids: [9007199254740993n, 1], name: "x" })).toBe(
      '{"merchantId":9223372036854775807,"ids":[9007199254740993,1],"name":"x"}',
    );
  });

  it.each<[string, unknown]>([
    ["a plain object", { a: 1, b: "two", c: [true, null], d: { e: 1.5 } }],
    ["undefined and function properties", { a: undefined, b: () => 1, c: 1 }],
    ["undefined in an array", [undefined, 1]],
    ["a Date", { at: new Date(Date.UTC(2026, 10, 22, 2, 15, 30)) }],
    ["an object with toJSON", { v: { toJSON: () => "custom" } }],
    ["non-finite numbers", { a: Number.NaN, b: Infinity }],
    ["unicode", { s: "少糖 ☕ \u2028 \"quoted\"" }],
    ["a top-level string", "text"],
  ])("matches JSON.stringify for %s", (_name, value) => {
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it("returns undefined where JSON.stringify does", () => {
    expect(stringifyJson(undefined)).toBeUndefined();
  });

  it("throws a TypeError for a circular structure instead of overflowing the stack", () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => stringifyJson(loop)).toThrow(TypeError);
  });

  it("round-trips with parseJsonLossless", () => {
    const value = { id: 9223372036854775807n, small: 42, list: [{ id: 9007199254740993n }] };
    expect(parseJsonLossless(stringifyJson(value)!)).toEqual(value);
  });
});

describe("withBigIntsAsNumbers", () => {
  it("replaces bigints by numbers in a copy, for schema validators", () => {
    const value = { id: 9007199254740993n, nested: [{ id: 1n }] };
    expect(withBigIntsAsNumbers(value)).toEqual({ id: 9007199254740992, nested: [{ id: 1 }] });
    expect(value.id).toBe(9007199254740993n);
  });
});

describe("parseJsonLossless, fast path and exact path alike", () => {
  // Text without a 16-digit run goes through JSON.parse, the rest through lossless-json after
  // the structure checks: either way the result is lossless-json's exact parse.
  const reference = (text: string): unknown =>
    parseExact(text, null, { parseNumber: (token: string) => (isInteger(token) && !Number.isSafeInteger(Number(token)) ? BigInt(token) : Number(token)) });
  const leaf = fc.oneof(
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.bigInt({ min: 2n ** 53n - 3n, max: 2n ** 53n + 3n }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 8 }),
    fc.boolean(),
    fc.constant(null),
  );
  const tree = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), tie("node"), { maxKeys: 4 })),
  })).node;

  it("gives lossless-json's exact result for any value with ids around and beyond 2^53", () => {
    fc.assert(
      fc.property(tree, (value) => {
        const text = stringifyJson(value) as string;
        expect(parseJsonLossless(text)).toEqual(reference(text));
      }),
      { numRuns: 500 },
    );
  });
});
