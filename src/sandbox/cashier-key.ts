// The cashier page of a trade opens only with the key in its cashierUrl. tradeNos follow a
// sequence, so without a key a neighbour's page (subject, amount, Pay button) could be opened by
// guessing. The key is derived, not stored: HMAC-SHA256 of the tradeNo under a random secret of
// this sandbox process, 128 bits in base64url.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export interface CashierKeys {
  keyFor(tradeNo: string): string;
  matches(tradeNo: string, key: unknown): boolean;
}

export function createCashierKeys(secret: Buffer = randomBytes(32)): CashierKeys {
  const keyFor = (tradeNo: string) => createHmac("sha256", secret).update(tradeNo).digest().subarray(0, 16).toString("base64url");
  return {
    keyFor,
    matches(tradeNo, key) {
      if (typeof key !== "string") return false;
      const expected = Buffer.from(keyFor(tradeNo));
      const given = Buffer.from(key);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
