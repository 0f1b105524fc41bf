// Refuses arrays longer than their schema's maxItems before the schema validator sees them:
// validating 50,000 bad items one by one (with every error collected) blocks the event loop
// for seconds, while counting them is instant. The limits are read from the spec the request
// is checked against, never from a list kept here. Iterative, so deep input cannot overflow
// the stack.
import { deref, type SpecDocument } from "../conformance/spec.js";

interface Visit {
  schema: unknown;
  value: unknown;
  at: string;
}

/** "at … has N items; at most M" for every array over its maxItems (none when all fit). */
export function oversizeArrays(spec: SpecDocument, schema: unknown, value: unknown, at = "body"): string[] {
  const problems: string[] = [];
  const stack: Visit[] = [{ schema, value, at }];
  while (stack.length > 0) {
    const { schema: given, value: node, at: where } = stack.pop()!;
    const resolved = deref(spec, given) as Record<string, any> | undefined;
    if (!resolved || typeof resolved !== "object") continue;
    // allOf: every branch applies. anyOf/oneOf are left to the validator: a limit of one branch
    // need not hold for a value another branch accepts.
    if (Array.isArray(resolved.allOf)) for (const branch of resolved.allOf) stack.push({ schema: branch, value: node, at: where });
    if (Array.isArray(node)) {
      if (typeof resolved.maxItems === "number" && node.length > resolved.maxItems) {
        problems.push(`${where} has ${node.length} items; at most ${resolved.maxItems} are allowed`);
        continue;
      }
      const prefix: unknown[] = Array.isArray(resolved.prefixItems) ? resolved.prefixItems : [];
      node.forEach((item, index) => {
        const itemSchema = index < prefix.length ? prefix[index] : resolved.items;
        if (itemSchema && typeof itemSchema === "object") stack.push({ schema: itemSchema, value: item, at: `${where}[${index}]` });
      });
    } else if (node && typeof node === "object") {
      const properties: Record<string, unknown> = resolved.properties ?? {};
      for (const [key, child] of Object.entries(node)) {
        const childSchema = Object.hasOwn(properties, key) ? properties[key] : resolved.additionalProperties;
        if (childSchema && typeof childSchema === "object") stack.push({ schema: childSchema, value: child, at: `${where}.${key}` });
      }
    }
  }
  return problems;
}
