// Every named example in the bundled specs validates against its schema (JSON Schema 2020-12),
// and every example has a summary.
import { describe, expect, it } from "vitest";
import { deref, loadBundledSpec, pointerSegment, schemaValidator, type Spec } from "./spec-loader.js";

interface ExampleCase {
  where: string;
  schemaPointer: string;
  value: unknown;
  summary: unknown;
}

/** Walks every media type (request bodies, responses, component responses) that has examples. */
function collectExamples(spec: Spec): ExampleCase[] {
  const cases: ExampleCase[] = [];
  const visitContent = (content: any, pointer: string) => {
    for (const [mediaType, media] of Object.entries<any>(content ?? {})) {
      const mediaPointer = `${pointer}/content/${pointerSegment(mediaType)}`;
      for (const [name, example] of Object.entries<any>(media.examples ?? {})) {
        const resolved = deref(spec, example);
        cases.push({ where: `${mediaPointer}/examples/${name}`, schemaPointer: `${mediaPointer}/schema`, value: resolved.value, summary: resolved.summary });
      }
    }
  };
  const visitOperation = (operation: any, pointer: string) => {
    if (operation.requestBody && !operation.requestBody.$ref) visitContent(operation.requestBody.content, `${pointer}/requestBody`);
    for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
      if (!response.$ref) visitContent(response.content, `${pointer}/responses/${status}`);
    }
  };
  for (const group of ["paths", "webhooks"]) {
    for (const [path, item] of Object.entries<any>(spec[group] ?? {})) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (typeof operation === "object" && operation.responses) visitOperation(operation, `/${group}/${pointerSegment(path)}/${method}`);
      }
    }
  }
  for (const [name, response] of Object.entries<any>(spec.components?.responses ?? {})) {
    visitContent(response.content, `/components/responses/${pointerSegment(name)}`);
  }
  return cases;
}

describe.each(["signed", "keyed", "sandbox-control"] as const)("examples of the %s spec", (name) => {
  let spec: Spec;
  try {
    spec = loadBundledSpec(name);
  } catch {
    it.skip(`generated/${name}.openapi.json is not generated yet`, () => {});
    return;
  }
  const validatorAt = schemaValidator(spec, `https://merchant-open-platform.test/${name}.json`);
  const cases = collectExamples(spec);

  it("has examples to check", () => {
    expect(cases.length).toBeGreaterThan(name === "signed" ? 40 : 3);
  });

  it.each(cases.map((c) => [c.where, c] as const))("%s is valid and has a summary", (_where, example) => {
    const validate = validatorAt(example.schemaPointer);
    const valid = validate(example.value);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(typeof example.summary === "string" && example.summary.length > 0).toBe(true);
  });

  it("catches an example that breaks its schema (the check can fail)", () => {
    const example = cases.find((c) => c.value && typeof c.value === "object" && !Array.isArray(c.value));
    expect(example).toBeDefined();
    const broken = { ...(example!.value as object), unexpectedField: true };
    expect(validatorAt(example!.schemaPointer)(broken)).toBe(false);
  });
});
