// Generated from openapi/errors.yaml by scripts/generate.ts. Do not edit: change the registry and run npm run generate.

export interface ErrorCodeEntry {
  readonly code: number;
  readonly http: number;
  readonly meaning: string;
  readonly source: "document" | "designed";
  readonly appliesTo: string | readonly string[];
}

/** Envelope error codes of the signed interface (/open-api), by name. Success is code 0. */
export const SignedErrors = {
  SIGNATURE_HEADER_MISSING: { code: 100001, http: 401, meaning: "A signature header (X-App-Key, X-Timestamp, X-Nonce or X-Sign) is missing or empty.", source: "designed", appliesTo: "all-signed" },
  APP_KEY_UNKNOWN: { code: 100002, http: 401, meaning: "The X-App-Key is not a known application, or the application is disabled.", source: "designed", appliesTo: "all-signed" },
  SIGNATURE_MISMATCH: { code: 100003, http: 401, meaning: "The X-Sign does not match the HMAC-SHA256 of appKey + timestamp + nonce + body under any valid secret of the app.", source: "designed", appliesTo: "all-signed" },
  TIMESTAMP_OUT_OF_WINDOW: { code: 100004, http: 401, meaning: "The X-Timestamp is more than 300 seconds before or after the server's clock.", source: "designed", appliesTo: "all-signed" },
  NONCE_REUSED: { code: 100005, http: 401, meaning: "The X-Nonce was already used by this app key within the timestamp window.", source: "designed", appliesTo: "all-signed" },
  RATE_LIMITED: { code: 100006, http: 429, meaning: "Too many requests from this app key, or the server cannot remember more nonces for the app within the timestamp window (or its shared nonce store is unreachable) and refuses rather than risk a replay; retry after the interval in the Retry-After header.", source: "designed", appliesTo: "all-signed" },
  MERCHANT_MODULE_FORBIDDEN: { code: 100007, http: 403, meaning: "The app has no permission on the merchant module.", source: "document", appliesTo: ["listMerchants","getMerchant"] },
  MERCHANT_DATA_FORBIDDEN: { code: 100008, http: 403, meaning: "The app has no data permission for that merchant (the merchant is not authorised for the app).", source: "document", appliesTo: ["createOrder","getOrder","payOrder","cancelOrder","listOrderStatusHistory","refundOrder","writeOffOrder","createCashierSession","purchaseMemberCard","listCardTemplates","getMerchant","listStores","listNearbyStores","getStore","getStoreBusinessHours"] },
  VALIDATION_FAILED: { code: 100009, http: 400, meaning: "Parameter validation failed; the message names each failing field and the rule it breaks.", source: "document", appliesTo: "all-signed" },
  TIMESTAMP_MALFORMED: { code: 100010, http: 401, meaning: "The X-Timestamp is not 10 decimal digits of Unix time in seconds (a millisecond timestamp is refused here).", source: "designed", appliesTo: "all-signed" },
  NONCE_MALFORMED: { code: 100011, http: 401, meaning: "The X-Nonce is not 8 to 64 characters of A-Z, a-z, 0-9, underscore or hyphen.", source: "designed", appliesTo: "all-signed" },
  SIGNATURE_MALFORMED: { code: 100012, http: 401, meaning: "The X-Sign is not standard padded Base64 of 32 bytes (a hexadecimal signature is refused here).", source: "designed", appliesTo: "all-signed" },
  BODY_TOO_LARGE: { code: 100013, http: 413, meaning: "The request body is larger than 1 MiB.", source: "designed", appliesTo: "all-signed" },
  UNSUPPORTED_MEDIA_TYPE: { code: 100014, http: 415, meaning: "A request with a body must be sent as application/json.", source: "designed", appliesTo: "all-signed" },
  PATH_NOT_FOUND: { code: 100015, http: 404, meaning: "No operation exists at this path.", source: "designed", appliesTo: "unrouted" },
  METHOD_NOT_ALLOWED: { code: 100016, http: 405, meaning: "The path exists but not with this HTTP method.", source: "designed", appliesTo: "unrouted" },
  REQUEST_SITE_REFUSED: { code: 100017, http: 403, meaning: "The request's Host is not a name the server serves (refused before any routing, like an unknown path), or a browser page of another origin sent a state-changing request; answered by the sandbox (its control API and cashier too) and by mop proxy.", source: "designed", appliesTo: "unrouted" },
  APP_QUOTA_EXCEEDED: { code: 100018, http: 403, meaning: "The app has as many stored orders or payment trades as the sandbox keeps per app (or, on the control API, as many faults or pending redeliveries); reset the sandbox or use another app.", source: "designed", appliesTo: ["createOrder","payOrder","createCashierSession"] },
  FAULT_NOT_FOUND: { code: 100019, http: 404, meaning: "The sandbox holds no fault with this faultId (deleted already, or dropped by a reset).", source: "designed", appliesTo: "control" },
  INTERNAL_ERROR: { code: 100099, http: 500, meaning: "An unexpected server error; nothing was changed. Report it with the request's time and X-Nonce.", source: "designed", appliesTo: "all-signed" },
  MERCHANT_NOT_FOUND: { code: 200001, http: 404, meaning: "The merchant does not exist.", source: "document", appliesTo: ["createOrder","getOrder","payOrder","cancelOrder","listOrderStatusHistory","refundOrder","writeOffOrder","createCashierSession","purchaseMemberCard","listCardTemplates","getMerchant","listStores","listNearbyStores"] },
  MERCHANT_OFFLINE: { code: 200002, http: 409, meaning: "The merchant is offline (disabled) and cannot be served.", source: "document", appliesTo: ["createOrder","getOrder","payOrder","cancelOrder","listOrderStatusHistory","refundOrder","writeOffOrder","createCashierSession","purchaseMemberCard","listCardTemplates","getMerchant","listStores","listNearbyStores","getStore","getStoreBusinessHours"] },
  STORE_NOT_FOUND: { code: 200003, http: 404, meaning: "The store does not exist, or does not belong to the given merchant.", source: "designed", appliesTo: ["createOrder","getStore","getStoreBusinessHours","writeOffOrder"] },
  STORE_DISABLED: { code: 200004, http: 409, meaning: "The store is disabled (status 1) and cannot take orders or write-offs.", source: "designed", appliesTo: ["createOrder","writeOffOrder"] },
  CUSTOMER_NOT_FOUND: { code: 200005, http: 404, meaning: "The app-user mapping id (userId / appUserId) is unknown to this app; obtain it from customer sync.", source: "designed", appliesTo: ["createOrder","purchaseMemberCard"] },
  ORDER_NOT_FOUND: { code: 300001, http: 404, meaning: "The order does not exist for this merchant.", source: "designed", appliesTo: ["getOrder","payOrder","cancelOrder","listOrderStatusHistory","refundOrder","writeOffOrder"] },
  ORDER_NOT_PENDING_PAYMENT: { code: 300002, http: 409, meaning: "Payment may be started only for an order in status 0 (pending payment).", source: "designed", appliesTo: ["payOrder"] },
  ORDER_NOT_CANCELLABLE: { code: 300003, http: 409, meaning: "Only an order in status 0 (pending payment) can be cancelled.", source: "designed", appliesTo: ["cancelOrder"] },
  ORDER_NOT_REFUNDABLE: { code: 300004, http: 409, meaning: "A refund applies only to an order in status 1 (paid).", source: "designed", appliesTo: ["refundOrder"] },
  ORDER_NOT_SERVICE_TYPE: { code: 300005, http: 409, meaning: "Write-off applies only to service-type orders (orderType 3, voucher purchase).", source: "designed", appliesTo: ["writeOffOrder"] },
  ORDER_NOT_WRITE_OFFABLE: { code: 300006, http: 409, meaning: "A service-type order can be written off only in status 1 (paid) or 2 (in service).", source: "designed", appliesTo: ["writeOffOrder"] },
  ORDER_AMOUNT_OUT_OF_RANGE: { code: 300007, http: 400, meaning: "The order total (sum of price x quantity) exceeds 2147483647 fen.", source: "designed", appliesTo: ["createOrder"] },
  ORDER_SERVICE_NOT_STARTABLE: { code: 300008, http: 409, meaning: "Service can start only for a paid (status 1) service-type order (sandbox control API).", source: "designed", appliesTo: "control" },
  ORDER_ZERO_AMOUNT: { code: 300009, http: 409, meaning: "An order whose totalAmount is 0 cannot be paid through a payment trade (a trade's totalAmount is at least 1 fen).", source: "designed", appliesTo: ["payOrder"] },
  TRADE_NOT_FOUND: { code: 400001, http: 404, meaning: "No payment trade with this tradeNo exists for the app.", source: "designed", appliesTo: ["queryPayment"] },
  OUT_TRADE_NO_CONFLICT: { code: 400002, http: 409, meaning: "The outTradeNo was already used for the app with different parameters, or by the other of createCashierSession and payOrder (which share one namespace); repeat the original parameters to get the original trade.", source: "designed", appliesTo: ["createCashierSession","payOrder"] },
  TRADE_NOT_PAYABLE: { code: 400003, http: 409, meaning: "The trade is not waiting for payment (it is paid, refunded or closed).", source: "designed", appliesTo: "control" },
  OUT_REFUND_NO_CONFLICT: { code: 400004, http: 409, meaning: "The outRefundNo was already used by the app with different parameters (order, merchant or reason); repeat the original parameters to get the original refund.", source: "designed", appliesTo: ["refundOrder"] },
  CALLBACK_EVENT_NOT_FOUND: { code: 400005, http: 404, meaning: "The sandbox's delivery log holds no callback event with this eventId (a reset drops them).", source: "designed", appliesTo: "control" },
  CARD_TEMPLATE_NOT_FOUND: { code: 500001, http: 404, meaning: "The card template does not exist for this merchant.", source: "designed", appliesTo: ["purchaseMemberCard"] },
  CARD_TIER_NOT_FOUND: { code: 500002, http: 404, meaning: "The top-up tier does not belong to the card template.", source: "designed", appliesTo: ["purchaseMemberCard"] },
  CARD_TIER_NOT_APPLICABLE: { code: 500003, http: 400, meaning: "A tierId may be sent only for a stored-value card template (cardType 0).", source: "designed", appliesTo: ["purchaseMemberCard"] },
  CREDIT_APPLICATION_NOT_FOUND: { code: 500004, http: 404, meaning: "The member-card credit application does not exist.", source: "designed", appliesTo: "control" },
  CREDIT_APPLICATION_NOT_PENDING: { code: 500005, http: 409, meaning: "The credit application has already been approved or rejected.", source: "designed", appliesTo: "control" },
} as const satisfies Record<string, ErrorCodeEntry>;

/** Envelope error codes of the key-based interface (/v1), by name. Success is code 200. */
export const KeyedErrors = {
  KEYED_VALIDATION_FAILED: { code: 400, http: 400, meaning: "A query parameter is invalid; the message names it and the rule it breaks.", source: "designed", appliesTo: ["listAccountMerchants"] },
  KEYED_UNAUTHORIZED: { code: 401, http: 401, meaning: "The Authorization header is missing, not of the form \"Bearer <API_KEY>\", or the key is unknown or revoked.", source: "designed", appliesTo: "all-keyed" },
  KEYED_PATH_NOT_FOUND: { code: 404, http: 404, meaning: "No operation exists at this path.", source: "designed", appliesTo: "unrouted" },
  KEYED_METHOD_NOT_ALLOWED: { code: 405, http: 405, meaning: "The path exists but not with this HTTP method.", source: "designed", appliesTo: "unrouted" },
  KEYED_RATE_LIMITED: { code: 429, http: 429, meaning: "Too many requests for this API key; retry after the interval in the Retry-After header.", source: "designed", appliesTo: "all-keyed" },
  KEYED_INTERNAL_ERROR: { code: 500, http: 500, meaning: "An unexpected server error; nothing was changed.", source: "designed", appliesTo: "all-keyed" },
} as const satisfies Record<string, ErrorCodeEntry>;

export type SignedErrorName = keyof typeof SignedErrors;
export type KeyedErrorName = keyof typeof KeyedErrors;
export type SignedErrorCode = (typeof SignedErrors)[SignedErrorName]["code"];
export type KeyedErrorCode = (typeof KeyedErrors)[KeyedErrorName]["code"];

/** Success codes of the two envelopes. */
export const SIGNED_SUCCESS_CODE = 0;
export const KEYED_SUCCESS_CODE = 200;

const signedByCode = new Map<number, ErrorCodeEntry & { name: SignedErrorName }>(
  Object.entries(SignedErrors).map(([name, entry]) => [entry.code, { ...entry, name: name as SignedErrorName }]),
);
const keyedByCode = new Map<number, ErrorCodeEntry & { name: KeyedErrorName }>(
  Object.entries(KeyedErrors).map(([name, entry]) => [entry.code, { ...entry, name: name as KeyedErrorName }]),
);

/** The registry entry of a signed-interface envelope code, or undefined for an unregistered code. */
export function describeSignedError(code: number): (ErrorCodeEntry & { name: SignedErrorName }) | undefined {
  return signedByCode.get(code);
}

/** The registry entry of a key-based-interface envelope code, or undefined for an unregistered code. */
export function describeKeyedError(code: number): (ErrorCodeEntry & { name: KeyedErrorName }) | undefined {
  return keyedByCode.get(code);
}
