// The request target as sent: split, never normalised.
import { describe, expect, it } from "vitest";
import { interfaceOf, parseRequestTarget } from "../../src/proxy/request-target.js";

describe("parseRequestTarget", () => {
  it.each([
    ["/open-api/v1/stores?merchantId=1", { forwarded: "/open-api/v1/stores?merchantId=1", path: "/open-api/v1/stores", query: "merchantId=1" }],
    ["/open-api/v1/orders/../merchants", { forwarded: "/open-api/v1/orders/../merchants", path: "/open-api/v1/orders/../merchants", query: "" }],
    ["//x//y?a=%zz&b", { forwarded: "//x//y?a=%zz&b", path: "//x//y", query: "a=%zz&b" }],
    ["/a#frag?not-query", { forwarded: "/a#frag?not-query", path: "/a", query: "" }],
    ["http://host:8080/open-api/v1/stores?x=1", { forwarded: "/open-api/v1/stores?x=1", path: "/open-api/v1/stores", query: "x=1" }],
    ["https://host", { forwarded: "/", path: "/", query: "" }],
  ])("%s", (raw, want) => {
    expect(parseRequestTarget(raw)).toEqual(want);
  });

  it.each(["*", "host:443", "relative/path", ""])("refuses %j", (raw) => {
    expect(parseRequestTarget(raw)).toBeUndefined();
  });
});

describe("interfaceOf", () => {
  it.each([
    ["/open-api/v1/stores", { variant: "signed", relative: "/stores" }],
    ["/open-api/stores", { variant: "signed", relative: "/stores" }],
    ["/open-api/v1", { variant: "signed", relative: "/" }],
    ["/v1/merchants", { variant: "keyed", relative: "/merchants" }],
    ["/open-apiX/stores", undefined],
    ["/sandbox/clock", undefined],
  ])("%s", (path, want) => {
    expect(interfaceOf(path)).toEqual(want);
  });
});
