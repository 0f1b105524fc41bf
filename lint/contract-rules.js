// Redocly plugin with the contract's own lint rules and decorators (see redocly.yaml).
import { CodeSamples } from "./code-samples.js";

/** Every property of every schema says what it is: its own description, or that of the schema it references. */
function PropertyDescription() {
  return {
    Schema: {
      enter(schema, ctx) {
        if (!schema || typeof schema.properties !== "object") return;
        // if/then/else and not only restate properties described on the schema itself.
        if (/\/(if|then|else|not)(\/|$)/.test(ctx.location.pointer)) return;
        for (const [name, property] of Object.entries(schema.properties)) {
          if (property && typeof property.description === "string" && property.description.trim()) continue;
          const target = property && property.$ref ? ctx.resolve(property).node : undefined;
          if (target && typeof target.description === "string" && target.description.trim()) continue;
          ctx.report({
            message: `Schema property "${name}" has no description.`,
            location: ctx.location.child(["properties", name]),
          });
        }
      },
    },
  };
}

/** x-source may only say "designed" (the default, from the source document, needs no mark). */
function XSourceValue() {
  return {
    any: {
      enter(node, ctx) {
        if (node && typeof node === "object" && !Array.isArray(node) && "x-source" in node && node["x-source"] !== "designed") {
          ctx.report({ message: 'x-source must be "designed".', location: ctx.location.child("x-source") });
        }
      },
    },
  };
}

export default function contractRules() {
  return {
    id: "contract",
    rules: {
      oas3: {
        "property-description": PropertyDescription,
        "x-source-value": XSourceValue,
      },
    },
    decorators: {
      oas3: {
        // x-codeSamples (TypeScript client call and curl) on every operation, at bundle time.
        "code-samples": CodeSamples,
      },
    },
  };
}
