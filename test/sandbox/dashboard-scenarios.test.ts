// The dashboard's server side for scenarios: what its forms offer (/sandbox/ui/choices) comes from
// the specs and the sandbox's apps, checked here against the bundled specs read independently;
// the state it polls stays bounded (the latest hits of a fault, an event's redeliveries around
// now); and the control calls its buttons make (createFault, deleteFault, redeliverCallback)
// refuse what a page of another site could send, while the page's own same-origin JSON passes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SHOWN_FAULT_HITS, SHOWN_REDELIVERIES } from "../../src/sandbox/dashboard/state.js";
import { packageRoot } from "../../src/util/package-root.js";
import { DEMO, eventually, startReceiver, startSandbox, type TestSandbox } from "../support/sandbox.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function sandbox(): Promise<TestSandbox> {
  const sb = await startSandbox({ allowInsecureNotify: true, callbackTimeoutMs: 2000 });
  cleanups.push(() => sb.close());
  return sb;
}

const bundle = (name: string) => JSON.parse(readFileSync(join(packageRoot(), "generated", `${name}.openapi.json`), "utf8"));

function operationIds(spec: { paths: Record<string, Record<string, { operationId?: string }>> }): string[] {
  return Object.values(spec.paths).flatMap((item) => Object.values(item).flatMap((operation) => (typeof operation?.operationId === "string" ? [operation.operationId] : [])));
}

async function json(sb: TestSandbox, path: string) {
  const response = await fetch(`${sb.url}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as any;
}

describe("the dashboard's choices", () => {
  it("offers every signed and key-based operation, the control spec's kinds, whens, variants and bounds, and the sandbox's apps", async () => {
    const sb = await sandbox();
    const choices = await json(sb, "/sandbox/ui/choices");
    const signed = operationIds(bundle("signed"));
    const keyed = operationIds(bundle("keyed"));
    expect(choices.operations.map((o: { operationId: string }) => o.operationId)).toEqual([...signed, ...keyed]);
    expect(choices.operations.filter((o: { interface: string }) => o.interface === "keyed").map((o: { operationId: string }) => o.operationId)).toEqual(keyed);
    expect(choices.operations.find((o: { operationId: string }) => o.operationId === "createCashierSession")).toMatchObject({ method: "POST", path: "/payment/cashier/create" });

    const control = bundle("sandbox-control").components.schemas;
    expect(choices.kinds.map((k: { value: string }) => k.value)).toEqual(control.FaultKind.enum);
    // Each kind's meaning is the one the spec's description gives it.
    for (const kind of choices.kinds) expect(kind.meaning, kind.value).toBeTruthy();
    expect(choices.kinds.find((k: { value: string }) => k.value === "slow").meaning).toBe("sends the operation's real answer delayMs late");
    expect(choices.whens.map((w: { value: string }) => w.value)).toEqual(control.FaultWhen.enum);
    expect(choices.whens.find((w: { value: string }) => w.value === "before").meaning).toContain("not carried out");
    expect(choices.delayRequiredKinds).toEqual(["slow"]);
    expect(choices.retryAfterKinds).toEqual(["rate-limited", "unavailable"]);
    const { times, delayMs, retryAfterSeconds } = control.CreateFaultRequest.properties;
    expect(choices.bounds.times).toEqual({ min: times.minimum, max: times.maximum, default: times.default });
    expect(choices.bounds.delayMs).toEqual({ min: delayMs.minimum, max: delayMs.maximum, default: null });
    expect(choices.bounds.retryAfterSeconds).toMatchObject({ min: retryAfterSeconds.minimum, max: retryAfterSeconds.maximum });
    expect(choices.bounds.afterSeconds.max).toBe(control.RedeliverCallbackRequest.properties.afterSeconds.maximum);
    expect(choices.variants).toEqual(
      control.CallbackVariant.enum.map((value: string) => ({ value, expected: value === "exact" || value === "reordered-fields" ? "acknowledged" : "refused" })),
    );
    expect(choices.apps.map((a: { appKey: string }) => a.appKey)).toEqual(["demo-app-key", "basic-app-key"]);
    // An app's name and key, never its secrets.
    expect(JSON.stringify(choices)).not.toContain(DEMO.appSecret);
    // A read of the dashboard's own: counted, not listed.
    const state = await json(sb, "/sandbox/ui/state");
    expect(state.requests.some((line: { url: string }) => line.url.includes("/choices"))).toBe(false);
    expect(state.ownRequests).toBeGreaterThanOrEqual(1);
  });
});

describe("the dashboard's state, bounded", () => {
  it(`shows each fault's count of requests answered and only its latest ${SHOWN_FAULT_HITS} hits`, async () => {
    const sb = await sandbox();
    const created = await sb.control("POST", "/faults", { operationId: "listMerchants", kind: "internal-error", times: SHOWN_FAULT_HITS + 2, appKey: DEMO.appKey });
    expect(created.json.code).toBe(0);
    for (let page = 1; page <= SHOWN_FAULT_HITS + 2; page++) expect((await sb.signed({ path: `/merchants?pageNo=${page}` })).status).toBe(500);
    const state = await json(sb, "/sandbox/ui/state");
    const [fault] = state.faults;
    expect(fault).toMatchObject({ faultId: created.json.data.faultId, remaining: 0, answered: SHOWN_FAULT_HITS + 2 });
    expect(fault.hits).toHaveLength(SHOWN_FAULT_HITS);
    // The latest ones: pages 3 to 7.
    expect(fault.hits.at(-1).path).toBe("/open-api/v1/merchants");
    expect((await sb.control("GET", "/faults")).json.data.list[0].hits).toHaveLength(SHOWN_FAULT_HITS + 2);
    const marked = state.requests.filter((line: { fault: unknown }) => line.fault !== null);
    expect(marked).toHaveLength(SHOWN_FAULT_HITS + 2);
    expect(marked[0].fault).toMatchObject({ faultId: fault.faultId, kind: "internal-error", when: "before", carriedOut: false, source: "control" });
  });

  it(`shows at most ${SHOWN_REDELIVERIES} of an event's redeliveries, around now, and how many it leaves out either side`, async () => {
    const sb = await sandbox();
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const { tradeNo } = await sb.createTrade({ notifyUrl: receiver.url });
    const eventId = (await sb.control("POST", `/trades/${tradeNo}/pay`)).json.data.eventId as string;
    await receiver.waitFor(1);
    expect((await sb.control("POST", `/callbacks/${eventId}/redeliver`, { variant: "exact", times: 20, everySeconds: 60 })).json.code).toBe(0);
    expect((await sb.control("POST", `/callbacks/${eventId}/redeliver`, { variant: "stale-timestamp", afterSeconds: 3600, times: 5 })).json.code).toBe(0);
    const card = await eventually(async () => {
      const found = (await json(sb, "/sandbox/ui/state")).deliveries.find((d: { eventId: string }) => d.eventId === eventId);
      return found?.redeliveries.some((r: { status: string }) => r.status === "sent") ? found : undefined;
    });
    // From the one sent now: the next 19 scheduled; 5 later ones (the stale ones, an hour late) left out.
    expect(card.redeliveries).toHaveLength(SHOWN_REDELIVERIES);
    expect(card.redeliveries[0]).toMatchObject({ variant: "exact", status: "sent", asExpected: true });
    expect(card.redeliveries.slice(1).every((r: { variant: string; status: string }) => r.variant === "exact" && r.status === "scheduled")).toBe(true);
    expect(card.redeliveriesNotShown).toEqual({ earlier: 0, later: 25 - SHOWN_REDELIVERIES });
    // Once the clock passes them all, the latest sent are shown.
    await sb.control("POST", "/clock/advance", { seconds: 7200 });
    const later = await eventually(async () => {
      const found = (await json(sb, "/sandbox/ui/state")).deliveries.find((d: { eventId: string }) => d.eventId === eventId);
      return found.redeliveries.every((r: { status: string }) => r.status === "sent") ? found : undefined;
    });
    expect(later.redeliveriesNotShown).toEqual({ earlier: 25 - SHOWN_REDELIVERIES, later: 0 });
    expect(later.redeliveries.slice(-5).map((r: { variant: string; asExpected: boolean }) => [r.variant, r.asExpected])).toEqual(Array(5).fill(["stale-timestamp", false]));
    expect((await sb.control("GET", `/callbacks?eventId=${eventId}`)).json.data.list[0].redeliveries).toHaveLength(25);
  });
});

describe("the control calls the dashboard's buttons make", () => {
  const foreign = [
    ["another site's Origin", { Origin: "https://evil.example", "Content-Type": "application/json" }, 403],
    ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json" }, 403],
    ["a form's text/plain (no preflight)", { "Content-Type": "text/plain" }, 415],
  ] as const;

  it.each(foreign)("refuse %s for createFault, deleteFault and redeliverCallback, and change nothing", async (_name, headers, status) => {
    const sb = await sandbox();
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const { tradeNo } = await sb.createTrade({ notifyUrl: receiver.url });
    const eventId = (await sb.control("POST", `/trades/${tradeNo}/pay`)).json.data.eventId as string;
    await receiver.waitFor(1);
    const faultId = (await sb.control("POST", "/faults", { operationId: "queryPayment", kind: "rate-limited" })).json.data.faultId as string;

    const create = await fetch(`${sb.url}/sandbox/faults`, { method: "POST", headers, body: JSON.stringify({ operationId: "queryPayment", kind: "internal-error" }) });
    const remove = await fetch(`${sb.url}/sandbox/faults/${faultId}`, { method: "DELETE", headers });
    const redeliver = await fetch(`${sb.url}/sandbox/callbacks/${eventId}/redeliver`, { method: "POST", headers, body: JSON.stringify({ variant: "exact" }) });
    for (const [name, answer] of [["createFault", create], ["deleteFault", remove], ["redeliverCallback", redeliver]] as const) {
      expect(answer.status, name).toBe(status);
      expect(((await answer.json()) as { code: number }).code, name).not.toBe(0);
    }
    const faults = (await sb.control("GET", "/faults")).json.data.list;
    expect(faults.map((f: { faultId: string }) => f.faultId)).toEqual([faultId]);
    expect((await sb.control("GET", `/callbacks?eventId=${eventId}`)).json.data.list[0].redeliveries).toEqual([]);
    expect(receiver.received).toHaveLength(1);

    // The page's own requests: same origin, JSON.
    const own = { Origin: sb.url, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json" };
    const code = async (response: Promise<Response>) => ((await (await response).json()) as { code: number }).code;
    expect(await code(fetch(`${sb.url}/sandbox/faults/${faultId}`, { method: "DELETE", headers: own }))).toBe(0);
    expect(await code(fetch(`${sb.url}/sandbox/callbacks/${eventId}/redeliver`, { method: "POST", headers: own, body: JSON.stringify({ variant: "exact" }) }))).toBe(0);
  });
});
