// Keeps each hand-written path file's error responses in step with the registry: the generator
// owns every 4xx/5xx entry of an operation's `responses` and the error alternative of its 200
// schema; everything else in the file (the success schema, examples, comments) stays as written.
import { isMap, isSeq, parseDocument, type Document } from "yaml";
import type { OperationErrors } from "./error-artifacts.js";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
const TO_STRING = { lineWidth: 0, flowCollectionPadding: false } as const;

/** operationIds of a path file, by method. */
export function operationIdsOf(text: string): string[] {
  const doc = parseDocument(text);
  return METHODS.map((method) => doc.getIn([method, "operationId"])).filter((id): id is string => typeof id === "string");
}

const isErrorStatus = (key: unknown) => /^[45]([0-9]{2}|XX)$/.test(String(key));

/** The path file with the operations' error responses and 200 error alternatives set from `errors`. */
export function withOperationErrors(text: string, errorsOf: (operationId: string) => OperationErrors): string {
  const doc = parseDocument(text);
  for (const method of METHODS) {
    const id = doc.getIn([method, "operationId"]);
    if (typeof id !== "string") continue;
    const errors = errorsOf(id);
    setSuccessAlternative(doc, method, errors.envelope);
    const responses = doc.getIn([method, "responses"]);
    if (!isMap(responses)) throw new Error(`${id}: no responses map`);
    for (const pair of [...responses.items]) if (isErrorStatus((pair.key as { value?: unknown })?.value ?? pair.key)) responses.delete(pair.key);
    for (const [status, name] of [...errors.responses].sort((a, b) => a[0] - b[0])) {
      responses.set(doc.createNode(String(status)), doc.createNode({ $ref: `../components/responses/${name}.yaml` }));
    }
    // "200" keeps its place first; keys are quoted like the hand-written ones.
    for (const pair of responses.items) {
      const key = pair.key as { type?: string };
      if (key && typeof key === "object") key.type = "QUOTE_DOUBLE";
    }
  }
  return doc.toString(TO_STRING);
}

/** 200's schema: oneOf [the success envelope as written, the operation's error envelope]. */
function setSuccessAlternative(doc: Document, method: string, envelope: string): void {
  const path = [method, "responses", "200", "content", "application/json", "schema"];
  const schema = doc.getIn(path, true);
  if (!isMap(schema)) throw new Error(`${method}: the 200 response has no application/json schema`);
  const oneOf = schema.get("oneOf", true);
  const success = isSeq(oneOf) ? (oneOf.toJSON() as unknown[])[0] : schema.toJSON();
  if (!success) throw new Error(`${method}: empty oneOf in the 200 schema`);
  const replacement = doc.createNode({ oneOf: [success, { $ref: `../components/schemas/${envelope}.yaml` }] });
  doc.setIn(path, replacement);
}
