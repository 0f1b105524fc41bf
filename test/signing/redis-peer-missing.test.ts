// Without ioredis installed, asking for a Redis nonce store says which package to install, as a
// PeerDependencyMissingError (ioredis is an optional peer: client-only installs do not have it).
import { describe, expect, it, vi } from "vitest";
import { MerchantOpenPlatformError, PeerDependencyMissingError } from "../../src/errors.js";
import { createRedisNonceStore } from "../../src/signing/index.js";

vi.mock("ioredis", () => {
  throw new Error("Cannot find package 'ioredis'");
});

describe("createRedisNonceStore without ioredis", () => {
  it("names the missing package and how to install it", async () => {
    const failure = await createRedisNonceStore({ url: "redis://127.0.0.1:1" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PeerDependencyMissingError);
    expect(failure).toBeInstanceOf(MerchantOpenPlatformError);
    expect(failure).toMatchObject({ name: "PeerDependencyMissingError", peer: "ioredis" });
    expect((failure as Error).message).toMatch(/npm install ioredis@6/);
  });
});
