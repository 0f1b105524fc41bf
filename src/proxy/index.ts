// The validating proxy (mop proxy).
export { startProxy, type ProxyOptions, type ProxyViolation, type RunningProxy } from "./server.js";
