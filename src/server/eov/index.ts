// The server kit's adapter of express-openapi-validator: what the rest of the kit (and the tests
// and benchmarks that compare it with the validator's public middleware) use of it.
export { createSpecValidator, type SpecValidator } from "./validator.js";
export { checkValidatorVersion, prefillResolvedReferences, prepareSpec, SUPPORTED_VALIDATOR_VERSION, validatorOptions, type PreparedSpec } from "./load.js";
export { metadataStep } from "./routing.js";
export type { OpenApiRequestMetadata } from "./internals.js";
