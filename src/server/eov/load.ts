// Loading a bundled spec into express-openapi-validator (EOV) as its middleware() does (options
// first, then the loader over a copy of the spec, then the schema preprocessor), less what the
// kit never needs. The rules, Ajv options, compiled schemas, error objects and messages are all
// EOV's; what changes is the plumbing (internals.ts holds every internal it touches):
//
//   - Loading (SpecOnlyFramework over OpenAPIFramework and OpenApiSpecLoader.framework) skips
//     compiling the OpenAPI meta-schema, which EOV 5.6 does even when validateApiSpec is false
//     (EOV #541/#544 stopped the validation, not the compilation: OpenAPISchemaValidator would have
//     to be built only when validateApiSpec is true), and skips re-bundling an already bundled
//     spec object with $RefParser (EOV would need an option to take apiSpec as bundled; no
//     upstream issue found). The spec is copied with structuredClone.
//   - prefillResolvedReferences hands SchemaPreprocessor's private resolvedSchemaCache the
//     targets of the spec's local references, which EOV finds by compiling each one with Ajv
//     (getSchema) only to take the same object back. Goes when the preprocessor resolves local
//     references by JSON pointer (no upstream issue found).
import type { OpenApiDocument } from "../../contract/index.js";
import { ServerConfigError } from "../errors.js";
import {
  apiDocOf,
  asApiSpec,
  createContext,
  createPreprocessor,
  createValidatorOptions,
  installedValidatorVersion,
  loadSpec,
  preprocess,
  resolvedSchemaCacheOf,
  SUPPORTED_VALIDATOR_VERSION,
  type OpenApiContext,
  type OpenApiValidatorOpts,
  type Paths,
} from "./internals.js";

export { SUPPORTED_VALIDATOR_VERSION };

/**
 * A project that forced another release (overrides, --legacy-peer-deps) is told at start-up, not
 * by wrong answers later: the peer dependency is pinned because the adapter reaches into EOV.
 */
export function checkValidatorVersion(installed: string = installedValidatorVersion()): void {
  if (installed !== SUPPORTED_VALIDATOR_VERSION) {
    throw new ServerConfigError(
      "express-openapi-validator",
      `The server kit needs express-openapi-validator ${SUPPORTED_VALIDATOR_VERSION} exactly (it uses the validator's internal modules); ${installed} is installed. Run: npm install express-openapi-validator@${SUPPORTED_VALIDATOR_VERSION}`,
    );
  }
}

/** The kit's validator options: all request errors at once, unknown query parameters refused, responses validated. */
export function validatorOptions(spec: OpenApiDocument): OpenApiValidatorOpts {
  return {
    apiSpec: asApiSpec(spec),
    validateApiSpec: false,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
    validateResponses: { allErrors: true },
    validateSecurity: false,
    validateFormats: true,
    fileUploader: false,
  };
}

// A local reference EOV resolves the same way through either of its paths (Ajv's getSchema or
// lodash.get of the dotted path): "#/" and segments without ".", "[", "]" or "~".
const PLAIN_LOCAL_REF = /^#(\/[^/.[\]~]+)+$/;

/**
 * Fills EOV's SchemaPreprocessor's cache of resolved references with their targets, found by
 * JSON pointer. EOV resolves a reference with Ajv's getSchema, which answers the very same
 * object but compiles it first: some 70 ms for the signed spec, all of it thrown away (the
 * preprocessor's Ajv is not the one that validates). A target that is itself a reference, or a
 * reference of another form, is left to EOV.
 */
export function prefillResolvedReferences(preprocessor: Parameters<typeof resolvedSchemaCacheOf>[0], apiDoc: unknown): void {
  const cache = resolvedSchemaCacheOf(preprocessor);
  if (!cache) return;
  const target = (ref: string): unknown => {
    let node: unknown = apiDoc;
    for (const segment of ref.slice(2).split("/")) {
      if (typeof node !== "object" || node === null || !Object.hasOwn(node, segment)) return undefined;
      node = (node as Record<string, unknown>)[segment];
    }
    return node;
  };
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) return node.forEach(visit);
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") {
        if (cache.has(value) || !PLAIN_LOCAL_REF.test(value)) continue;
        const resolved = target(value);
        if (typeof resolved === "object" && resolved !== null && !Array.isArray(resolved) && !("$ref" in resolved)) cache.set(value, resolved);
      } else visit(value);
    }
  };
  visit(apiDoc);
}

/** What the validator is built from: EOV's options object, its loaded and preprocessed spec, its route context. */
export interface PreparedSpec {
  built: ReturnType<typeof createValidatorOptions>;
  context: OpenApiContext;
  responseApiDoc: { paths: Paths };
}

/**
 * Loads a spec as EOV's middleware() does, less the meta-schema and the throw-away compilations.
 * `prefill` false leaves the preprocessor to resolve references itself (for comparison in tests).
 */
export async function prepareSpec(spec: OpenApiDocument, options: { prefill?: boolean } = {}): Promise<PreparedSpec> {
  const built = createValidatorOptions(validatorOptions(spec));
  const loaded = await loadSpec(spec);
  const preprocessor = createPreprocessor(loaded, built);
  if (options.prefill !== false) prefillResolvedReferences(preprocessor, loaded.apiDoc);
  const responseApiDoc = preprocess(preprocessor);
  return { built, context: createContext(loaded), responseApiDoc };
}

export { apiDocOf };
