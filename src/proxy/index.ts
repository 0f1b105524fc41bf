// The validating and signing proxy (mop proxy).
export { PROXY_DEFAULTS, startProxy, type ProxyOptions, type ProxySigning, type ProxyViolation, type RunningProxy } from "./server.js";
export { MAX_BODY_BYTES } from "./body.js";
export { MerchantOpenPlatformError } from "../errors.js";
export { ProxyConfigError } from "./errors.js";
export { MAX_LISTED_PROBLEMS } from "./request-check.js";
