// int64 guided by a schema (src/json/int64.ts): only the fields the schema marks int64 are
// converted, once each way, and what is written is what the lossless writer writes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exactJsonText, int64AsNumbers, int64FieldsOf, readInt64Fields, restoreInt64, stringifyJson, type InexactInteger } from "../../src/json/index.js";

const id = { type: "integer", format: "int64" };
const schemas: Record<string, unknown> = {
  Item: { type: "object", properties: { itemId: { $ref: "#/Id" }, price: { type: "integer", format: "int32" }, name: { type: "string" } } },
  Id: id,
  Order: {
    type: "object",
    properties: { orderId: { $ref: "#/Id" }, total: { type: "integer" }, items: { type: "array", items: { $ref: "#/Item" } }, tags: { type: "object", additionalProperties: { $ref: "#/Id" } } },
  },
  Envelope: { oneOf: [{ type: "object", properties: { code: { const: 0 }, data: { $ref: "#/Order" } } }, { type: "object", properties: { code: { type: "integer" }, data: { type: "null" } } }] },
};
const deref = (node: unknown): unknown => schemas[((node as { $ref: string }).$ref).slice(2)];
const fieldsOf = (name: string) => int64FieldsOf(deref({ $ref: `#/${name}` }), deref)!;

describe("int64FieldsOf", () => {
  it("finds the int64 fields through $ref, items, additionalProperties and oneOf, and nothing else", () => {
    const fields = fieldsOf("Envelope");
    const data = fields.properties?.get("data");
    expect([...(fields.properties?.keys() ?? [])]).toEqual(["data"]);
    expect([...(data?.properties?.keys() ?? [])]).toEqual(["orderId", "items", "tags"]);
    expect(data?.properties?.get("items")?.items?.properties?.get("itemId")?.int64).toBe(true);
    expect(data?.properties?.get("items")?.items?.properties?.has("price")).toBe(false);
    expect(data?.properties?.get("tags")?.otherProperties?.int64).toBe(true);
    expect(int64FieldsOf({ type: "object", properties: { name: { type: "string" } } }, deref)).toBeUndefined();
  });

  it("follows a schema that refers to itself once", () => {
    const tree: Record<string, unknown> = { Node: { type: "object", properties: { id, children: { type: "array", items: { $ref: "#/Node" } } } } };
    const fields = int64FieldsOf(tree.Node, (node) => tree[(node as { $ref: string }).$ref.slice(2)]);
    expect(fields?.properties?.get("id")?.int64).toBe(true);
  });
});

describe("readInt64Fields (in)", () => {
  it("turns exactly the int64 fields into bigint, and leaves the others alone", () => {
    const body = { orderId: 5, total: 7, items: [{ itemId: 9007199254740991, price: 12, name: "tea" }], tags: { a: 3 } };
    const problems: InexactInteger[] = [];
    readInt64Fields(body, fieldsOf("Order"), problems);
    expect(problems).toEqual([]);
    expect(body).toEqual({ orderId: 5n, total: 7, items: [{ itemId: 9007199254740991n, price: 12, name: "tea" }], tags: { a: 3n } });
  });

  it("takes an id beyond 2^53 from the exact parse, and names an id that was read rounded or beyond int64", () => {
    const items = [{ itemId: 1e18 }, { itemId: 2 ** 64 }];
    const body = { orderId: 9007199254740994, items };
    const exact = new Map<object, Map<string | number, bigint>>([[body, new Map([["orderId", 9007199254740993n]])]]);
    const problems: InexactInteger[] = [];
    readInt64Fields(body, fieldsOf("Order"), problems, exact);
    expect(body.orderId).toBe(9007199254740993n);
    expect(problems).toEqual([
      { path: "items[0].itemId", overflow: false },
      { path: "items[1].itemId", overflow: true },
    ]);
    const over: InexactInteger[] = [];
    readInt64Fields({ orderId: 0 }, fieldsOf("Order"), over, new Map([[{}, new Map()]]));
    const huge = { orderId: 1 };
    readInt64Fields(huge, fieldsOf("Order"), over, new Map([[huge, new Map([["orderId", 2n ** 63n]])]]));
    expect(over).toEqual([{ path: "orderId", overflow: true }]);
  });
});

describe("int64AsNumbers, exactJsonText, restoreInt64 (out)", () => {
  const bigId = fc.oneof(fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }), fc.bigInt({ min: 2n ** 53n - 3n, max: 2n ** 53n + 3n }));
  const order = fc.record({
    code: fc.constant(0),
    data: fc.record({
      orderId: bigId,
      total: fc.integer(),
      items: fc.array(fc.record({ itemId: bigId, price: fc.integer(), name: fc.string() }), { maxLength: 4 }),
      tags: fc.dictionary(fc.string(), bigId, { maxKeys: 3 }),
    }),
  });

  it("shows the validator numbers, writes what the lossless writer writes, and puts every bigint back", () => {
    fc.assert(
      fc.property(order, (answer) => {
        const before = structuredClone(answer);
        const slots = int64AsNumbers(answer, fieldsOf("Envelope"));
        expect(JSON.stringify(answer, (_key, value: unknown) => (typeof value === "bigint" ? "BIGINT" : value))).not.toContain("BIGINT");
        expect(exactJsonText(answer, slots)).toBe(stringifyJson(before));
        restoreInt64(slots);
        expect(answer).toEqual(before);
      }),
      { numRuns: 500 },
    );
  });

  it("still writes a bigint outside the int64 fields exactly", () => {
    const answer = { code: 0, data: { orderId: 2n ** 60n + 1n, total: 2n ** 62n + 1n, items: [] } };
    const slots = int64AsNumbers(answer, fieldsOf("Envelope"));
    expect(answer.data.total).toBe(2n ** 62n + 1n);
    expect(exactJsonText(answer, slots)).toBe('{"code":0,"data":{"orderId":1152921504606846977,"total":4611686018427387905,"items":[]}}');
  });

  it("refuses to change a frozen answer, leaving it as it was", () => {
    const answer = { code: 0, data: Object.freeze({ orderId: 5n, items: [] }) };
    expect(() => int64AsNumbers(answer, fieldsOf("Envelope"))).toThrow(TypeError);
    expect(answer.data.orderId).toBe(5n);
  });
});
