// The array-count check reads its limits from whatever spec it is given: references, nested
// arrays, allOf (the tighter limit) and oneOf (only a limit every branch has, the looser one).
import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { createArrayLimitCheck } from "../../src/server/array-limits.js";
import { RefusalError } from "../../src/sandbox/errors.js";

const document = {
  components: {
    schemas: {
      Tag: { type: "object", properties: { codes: { type: "array", maxItems: 2, items: { type: "string" } } } },
      Line: { type: "object", properties: { tags: { type: "array", maxItems: 3, items: { $ref: "#/components/schemas/Tag" } } } },
    },
  },
};
const operation = {
  requestBody: {
    content: {
      "application/json": {
        schema: {
          type: "object",
          properties: {
            lines: { type: "array", maxItems: 4, items: { $ref: "#/components/schemas/Line" } },
            both: { allOf: [{ type: "array", maxItems: 5 }, { maxItems: 3 }] },
            either: { oneOf: [{ type: "array", maxItems: 2 }, { type: "array", maxItems: 6 }] },
            open: { oneOf: [{ type: "array", maxItems: 2 }, { type: "string" }] },
          },
        },
      },
    },
  },
};

function check(body: unknown): string | undefined {
  const run = createArrayLimitCheck(document);
  try {
    run({ openapi: { schema: operation }, body } as unknown as Request);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(RefusalError);
    return (error as RefusalError).message;
  }
}

const many = (n: number) => Array.from({ length: n }, () => ({}));

describe("createArrayLimitCheck", () => {
  it.each<[string, unknown, string | undefined]>([
    ["arrays within their limits", { lines: [{ tags: [{ codes: ["a", "b"] }] }], both: [1, 2, 3], either: many(6) }, undefined],
    ["a top-level property", { lines: many(5) }, "body.lines must NOT have more than 4 items (it has 5)"],
    ["an array inside a referenced item schema", { lines: [{}, { tags: many(4) }] }, "body.lines[1].tags must NOT have more than 3 items (it has 4)"],
    ["two levels of references down", { lines: [{ tags: [{}, { codes: ["a", "b", "c"] }] }] }, "body.lines[0].tags[1].codes must NOT have more than 2 items (it has 3)"],
    ["allOf: the tighter limit", { both: many(4) }, "body.both must NOT have more than 3 items (it has 4)"],
    ["oneOf: the looser limit", { either: many(7) }, "body.either must NOT have more than 6 items (it has 7)"],
    ["oneOf with an unlimited branch: no limit", { open: many(1000) }, undefined],
    ["a non-array where an array is expected: left to the validator", { lines: "x" }, undefined],
  ])("%s", (_name, body, message) => {
    expect(check(body)).toBe(message);
  });
});
