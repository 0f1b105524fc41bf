// TypeScript types from a bundled spec with openapi-typescript.
// int64 decision (docs/ids-and-int64.md): an int64 is `number | bigint` so that a value
// above 2^53 - 1 is never forced into a lossy number; the client parses those as bigint.
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";

const NUMBER = ts.factory.createKeywordTypeNode(ts.SyntaxKind.NumberKeyword);
const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);
const NULL = ts.factory.createLiteralTypeNode(ts.factory.createNull());

export async function typesFor(spec: Record<string, unknown>, header: string): Promise<string> {
  const ast = await openapiTS(spec as never, {
    // A field with a default is optional for the caller (expireMinutes, pageSize, ...).
    defaultNonNullable: false,
    transform(schema) {
      if (schema.format !== "int64") return undefined;
      const nullable = Array.isArray(schema.type) && schema.type.includes("null");
      return ts.factory.createUnionTypeNode(nullable ? [NUMBER, BIGINT, NULL] : [NUMBER, BIGINT]);
    },
  });
  return header + astToString(ast);
}
