// Duplicate keys and excessive nesting are refused by parseJsonLossless on both of its paths:
// the engine's JSON.parse (text without a 16-digit run) and the lossless parser (text with one,
// e.g. an int64 id). Each case is run in both forms, so the fast path cannot accept what the
// exact path refuses.
import { describe, expect, it } from "vitest";
import { JsonStructureError, MAX_JSON_DEPTH, parseJsonLossless } from "../../src/json/index.js";

const BIG = "9223372036854775807";

/** The same text read on the fast path and (with a 19-digit id beside it) on the exact path. */
function bothPaths(body: string): [string, string][] {
  return [
    ["fast path", body],
    ["exact path", `{"id":${BIG},"body":${body}}`],
  ];
}

function structureError(text: string, maxDepth?: number): JsonStructureError {
  try {
    parseJsonLossless(text, maxDepth === undefined ? {} : { maxDepth });
  } catch (error) {
    expect(error).toBeInstanceOf(JsonStructureError);
    expect(error).toBeInstanceOf(SyntaxError);
    return error as JsonStructureError;
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
}

function nested(depth: number, open = "[", close = "]"): string {
  return open.repeat(depth) + close.repeat(depth);
}

describe("duplicate keys", () => {
  it.each([
    ["differing values", '{"totalAmount":1,"totalAmount":999}', "totalAmount"],
    ["equal values", '{"a":1,"a":1}', "a"],
    ["the same key spelled with an escape", '{"a":1,"\\u0061":2}', "a"],
    ["in a nested object", '{"items":[{"itemId":1,"qty":2,"qty":3}]}', "qty"],
    ["pretty-printed", '{\n  "a" : 1,\n  "a" : 2\n}', "a"],
    ["after a string holding an escaped quote and a colon", '{"note":"x\\":y","a":1,"a":2}', "a"],
    ["__proto__ twice", '{"__proto__":{},"__proto__":{"polluted":true}}', "__proto__"],
  ])("refuses a duplicate key: %s", (_name, body, key) => {
    for (const [path, text] of bothPaths(body)) {
      const error = structureError(text);
      expect(error.problem, path).toBe("duplicate-key");
      expect(error.key, path).toBe(key);
      // The position is the second key's opening quote in the text.
      expect(text.slice(error.position).startsWith('"'), path).toBe(true);
      expect(error.message, path).toContain(`Duplicate key "${key}" at position ${error.position}`);
    }
  });

  it("names the position of the second occurrence", () => {
    const text = '{"totalAmount":1,"totalAmount":999}';
    expect(structureError(text).position).toBe(text.lastIndexOf('"totalAmount"'));
  });

  it.each([
    ["the same key in sibling objects", '[{"a":1},{"a":2}]', [{ a: 1 }, { a: 2 }]],
    ["the same key at two levels", '{"a":{"a":1}}', { a: { a: 1 } }],
    ["a string value that looks like a key", '{"a":"b\\":1,\\"a\\":2","b":1}', { a: 'b":1,"a":2', b: 1 }],
    ["keys differing only in case", '{"a":1,"A":2}', { a: 1, A: 2 }],
    ["a string in an array after an object", '[{"a":1},"a",{"a":2}]', [{ a: 1 }, "a", { a: 2 }]],
  ])("accepts %s", (_name, body, want) => {
    for (const [path, text] of bothPaths(body)) {
      const got = parseJsonLossless(text);
      expect(path === "fast path" ? got : (got as { body: unknown }).body, path).toEqual(want);
    }
  });
});

describe("nesting depth", () => {
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    expect(() => parseJsonLossless(nested(MAX_JSON_DEPTH))).not.toThrow();
    const error = structureError(nested(MAX_JSON_DEPTH + 1));
    expect(error.problem).toBe("too-deep");
    expect(error.limit).toBe(MAX_JSON_DEPTH);
    expect(error.position).toBe(MAX_JSON_DEPTH);
    expect(error.message).toBe(`Nesting deeper than ${MAX_JSON_DEPTH} levels at position ${MAX_JSON_DEPTH}`);
  });

  it.each([
    ["arrays, 5,500 levels", nested(5500)],
    ["objects, 5,500 levels", '{"a":'.repeat(5500) + "1" + "}".repeat(5500)],
    ["mixed, 100,000 levels", '[{"a":'.repeat(50_000) + "1" + "}]".repeat(50_000)],
    ["unclosed (not JSON), 200,000 levels", "[".repeat(200_000)],
  ])("refuses %s with a JsonStructureError, never a stack overflow", (_name, body) => {
    for (const [path, text] of bothPaths(body)) {
      expect(structureError(text).problem, path).toBe("too-deep");
    }
  });

  it("counts brackets inside strings as text, not as levels", () => {
    const text = `{"s":${JSON.stringify("[".repeat(1000))}}`;
    expect(parseJsonLossless(text)).toEqual({ s: "[".repeat(1000) });
  });

  it("takes a custom limit", () => {
    expect(() => parseJsonLossless('{"a":{"b":1}}', { maxDepth: 2 })).not.toThrow();
    expect(structureError('{"a":{"b":[1]}}', 2).position).toBe('{"a":{"b":'.length);
    expect(structureError(`{"id":${BIG},"a":{"b":[1]}}`, 2).problem).toBe("too-deep");
  });
});

describe("agreement of the two paths on hostile and ordinary text", () => {
  // A small deterministic generator of objects with repeated keys, escapes and nesting.
  function* samples(): Generator<string> {
    let seed = 7;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      const high = seed >>> 16;
      return high % n;
    };
    const keys = ["a", "b", "\\u0061", "a\\\"", "c:"];
    const value = (depth: number): string => {
      const pick = next(depth > 3 ? 3 : 5);
      if (pick === 0) return String(next(100));
      if (pick === 1) return JSON.stringify(keys[next(keys.length)]);
      if (pick === 2) return "null";
      if (pick === 3) return `[${Array.from({ length: next(3) }, () => value(depth + 1)).join(",")}]`;
      const n = next(4);
      return `{${Array.from({ length: n }, () => `"${keys[next(keys.length)]}"${next(2) ? " " : ""}:${value(depth + 1)}`).join(",")}}`;
    };
    for (let i = 0; i < 400; i++) yield value(0);
  }

  it("the fast path accepts exactly what the exact path accepts, with the same value", () => {
    let refused = 0;
    for (const body of samples()) {
      const outcome = (text: string) => {
        try {
          return { value: parseJsonLossless(text) };
        } catch (error) {
          return { error: (error as JsonStructureError).problem ?? "syntax" };
        }
      };
      const fast = outcome(body);
      const exact = outcome(`{"id":${BIG},"body":${body}}`);
      if ("error" in fast) refused++;
      expect("error" in fast ? fast : { value: fast.value }, body).toEqual("error" in exact ? exact : { value: (exact.value as { body: unknown }).body });
    }
    expect(refused).toBeGreaterThan(10);
  });
});
