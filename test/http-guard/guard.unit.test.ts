// The local-server guard on its own (its use by the sandbox and mop proxy is tested over HTTP in
// test/hostile/cross-site.test.ts and test/proxy/site-guard.test.ts): which Host names are
// served, and which browser requests come from a page of another origin.
import { describe, expect, it } from "vitest";
import { crossOriginReason, isStateChanging, normaliseHost, ServedHosts } from "../../src/http-guard/index.js";

describe("ServedHosts", () => {
  it.each<[string, boolean]>([
    ["localhost:4010", true],
    ["LOCALHOST.:4010", true],
    ["app.localhost", true],
    ["127.0.0.1:4010", true],
    ["[::1]:4010", true],
    ["10.0.0.7:4010", true],
    ["sandbox.example:4010", true],
    ["evil.example:4010", false],
    ["", false],
  ])("serves the Host %j: %s", (host, served) => {
    const hosts = new ServedHosts();
    hosts.addUrl("https://sandbox.example/base");
    hosts.addUrl("not a url");
    expect(hosts.serves(host)).toBe(served);
  });

  it("normalises names: case, brackets, a trailing dot", () => {
    expect(normaliseHost(" [::1] ")).toBe("::1");
    expect(normaliseHost("Example.COM.")).toBe("example.com");
  });
});

describe("crossOriginReason and isStateChanging", () => {
  it.each<[string, Parameters<typeof crossOriginReason>[0], string | undefined]>([
    ["no browser headers (curl, an SDK)", { host: "localhost:4010" }, undefined],
    ["the same origin", { host: "localhost:4010", origin: "http://localhost:4010", "sec-fetch-site": "same-origin" }, undefined],
    ["another site by Sec-Fetch-Site", { host: "localhost:4010", "sec-fetch-site": "cross-site" }, "Sec-Fetch-Site: cross-site"],
    ["another origin by Origin", { host: "localhost:4010", origin: "https://evil.example" }, "Origin: https://evil.example"],
    ["an opaque origin", { host: "localhost:4010", origin: "null" }, "Origin: null"],
  ])("%s", (_name, headers, reason) => {
    expect(crossOriginReason(headers)).toBe(reason);
  });

  it("judges only methods that may change state", () => {
    expect(["GET", "head", "OPTIONS"].map(isStateChanging)).toEqual([false, false, false]);
    expect(["POST", "put", "DELETE", "PATCH"].map(isStateChanging)).toEqual([true, true, true, true]);
  });
});
