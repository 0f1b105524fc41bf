// The sandbox refuses requests with the server kit's registry errors (src/server/errors.ts).
export { RefusalError, keyedError, signedError, type KeyedErrorName, type SignedErrorName } from "../server/index.js";
