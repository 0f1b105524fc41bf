// What a web page must not be able to do to a server on a developer's machine (DNS rebinding,
// cross-site state changes). Shared by the sandbox and mop proxy, so both refuse the same
// requests for the same reasons; each answers the refusal in its own way.
export { ServedHosts, normaliseHost } from "./served-hosts.js";
export { crossOriginReason, isStateChanging, type SiteHeaders } from "./cross-origin.js";
export { MerchantOpenPlatformError } from "../errors.js";
