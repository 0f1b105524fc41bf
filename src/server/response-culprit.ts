// What exactly is wrong with an answer that failed response validation. Each operation's 200
// schema is a oneOf of its success envelope and its error envelope (DESIGN item 4), so the
// validator reports both branches: a success answer with one bad field also "must be one of"
// the error codes and "data must be null". The culprit is what the branch the answer's code
// selects says about it, found here by validating the answer against that branch alone.
import { envelopeCode, isSuccessCode, resolvePointer, schemasFor, type Dialect, type SpecName } from "../contract/index.js";

/** One branch of a response schema: its pointer and whether it accepts this envelope code. */
function branchFor(spec: SpecName, pointer: string, code: number, dialect: Dialect): string | undefined {
  const schemas = schemasFor(spec);
  const { pointer: resolved, node } = resolvePointer(schemas.spec, pointer);
  const branches: string[] = Array.isArray(node?.oneOf) ? node.oneOf.map((_: unknown, index: number) => `${resolved}/oneOf/${index}`) : [resolved];
  return branches.find((branch) => {
    const envelope = resolvePointer(schemas.spec, branch);
    const codeSchema = resolvePointer(schemas.spec, `${envelope.pointer}/properties/code`).node;
    if (codeSchema?.const !== undefined) return codeSchema.const === code;
    if (Array.isArray(codeSchema?.enum)) return codeSchema.enum.includes(code);
    // An envelope whose code is any integer: the success branch answers for the success code only.
    return !isSuccessCode(dialect, code);
  });
}

/**
 * The problems of an answer against the one branch its code selects, e.g. ["data.status must be
 * integer"], or why no branch fits ("code 200003 is not an error getOrder declares for HTTP 404").
 * Undefined when the operation or its response schema is unknown (the validator's own errors
 * are all there is to say then).
 */
export function responseCulprit(spec: SpecName, dialect: Dialect, operationId: string, status: number, body: unknown): string[] | undefined {
  let schemas;
  try {
    schemas = schemasFor(spec);
    schemas.operation(operationId);
  } catch {
    return undefined;
  }
  const pointer = schemas.responseSchemaPointer(operationId, String(status));
  if (!pointer) return [`${operationId} declares no answer with HTTP ${status}`];
  const code = envelopeCode(body);
  if (code === undefined) return ["the answer has no integer envelope code"];
  const branch = branchFor(spec, pointer, code, dialect);
  if (!branch) return [`code ${code} is not one ${operationId} declares for HTTP ${status} (openapi/errors.yaml appliesTo)`];
  // "/data/status must be integer" → "data.status must be integer": the field as a handler writes it.
  return schemas.validate(branch, body).map((problem) => problem.replace(/^\S*/, (path) => path.replace(/^\//, "").replace(/\//g, ".") || "(body)"));
}
