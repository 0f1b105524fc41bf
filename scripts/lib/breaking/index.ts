// The breaking-change check of the contract: compare two bundled OpenAPI 3.1 documents.
// A focused checker rather than a diff library: none of the JavaScript ones found (openapi-diff
// with swagger-parser, @useoptic/openapi-utilities) covers OpenAPI 3.1 webhooks offline, and
// oasdiff is a Go binary.
export { checkBreaking, formatReport, type CheckOptions, type CheckResult, type SpecComparison } from "./check.js";
export { compareDocuments } from "./operations.js";
export { compareSemver, listReleases, majorMoved, parseSemver } from "./releases.js";
export type { Direction, Finding, Level } from "./types.js";
