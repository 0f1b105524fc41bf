// The dashboard's server side (/sandbox/ui): its files served with a strict CSP, the state it
// polls (latest requests, a refused signature's expected string to sign and never the secret,
// trades, orders, deliveries, the clock), and resend, which only same-origin JSON may trigger.
import { afterEach, describe, expect, it } from "vitest";
import { DEMO, eventually, startReceiver, startSandbox, type Receiver, type TestSandbox } from "../support/sandbox.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(): Promise<{ sb: TestSandbox; r: Receiver }> {
  const sb = await startSandbox({ allowInsecureNotify: true, callbackSchedule: [20], callbackTimeoutMs: 2000 });
  const r = await startReceiver();
  cleanups.push(() => sb.close(), () => r.close());
  return { sb, r };
}

async function state(sb: TestSandbox) {
  const response = await fetch(`${sb.url}/sandbox/ui/state`);
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

describe("the sandbox dashboard", () => {
  it("serves its page, script and stylesheet from the sandbox, with a CSP that allows nothing else", async () => {
    const { sb } = await setup();
    for (const [path, type] of [["/sandbox/ui", "text/html"], ["/sandbox/ui/dashboard.js", "text/javascript"], ["/sandbox/ui/dashboard.css", "text/css"]] as const) {
      const response = await fetch(`${sb.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toContain(type);
      expect(response.headers.get("content-security-policy"), path).toContain("default-src 'none'; script-src 'self'");
      const text = await response.text();
      expect(text, path).not.toMatch(/https?:\/\/(?!www\.w3\.org)/); // no CDN, nothing remote
    }
  });

  it("lists the latest requests with operation, status, code and timing; a refused signature shows the expected string to sign, never the secret", async () => {
    const { sb } = await setup();
    await sb.syncUser("dash-user");
    const body = { openUserId: "dash-user-2" };
    const wrong = await sb.signed({ path: "/customers/sync", body, app: { appKey: DEMO.appKey, appSecret: "not-the-secret" }, timestamp: String(Math.floor(sb.sandbox.clock.now() / 1000)), nonce: "nonce-dashboard-1" });
    expect(wrong.status).toBe(401);

    const { requests } = await state(sb);
    const [refused, accepted] = requests;
    expect(accepted).toMatchObject({ method: "POST", url: "/open-api/v1/customers/sync", operationId: "syncCustomer", status: 200, code: 0, outcome: "ok" });
    expect(accepted.durationMs).toEqual(expect.any(Number));
    const timestamp = String(Math.floor(sb.sandbox.clock.now() / 1000));
    expect(refused).toMatchObject({ status: 401, code: 100003, diagnosis: "SIGNATURE_MISMATCH", outcome: "refused" });
    const detail = (await (await fetch(`${sb.url}/sandbox/ui/requests/${refused.id}`)).json()) as any;
    expect(detail).toMatchObject({
      status: 401,
      code: 100003,
      signature: {
        name: "SIGNATURE_MISMATCH",
        received: { appKey: DEMO.appKey, timestamp, nonce: "nonce-dashboard-1", sign: expect.stringMatching(/^.{6}… \(44 characters, masked\)$/) },
        expectedStringToSign: `${DEMO.appKey}${timestamp}nonce-dashboard-1${JSON.stringify(body)}`,
      },
    });
    expect(JSON.stringify(requests)).not.toContain(DEMO.appSecret);
    expect(JSON.stringify(detail)).not.toContain(DEMO.appSecret);
    // The dashboard's own polling is not recorded.
    expect((await state(sb)).requests.every((r: { url: string }) => !r.url.startsWith("/sandbox/ui"))).toBe(true);
  });

  it("shows trades, orders, deliveries with their attempts, and the clock", async () => {
    const { sb, r } = await setup();
    const orderId = await sb.createOrder();
    const { tradeNo } = await sb.createTrade({ notifyUrl: r.url });
    await sb.control("POST", `/trades/${tradeNo}/pay`);
    const shown = await eventually(async () => {
      const s = await state(sb);
      return s.deliveries[0]?.status === "delivered" && s;
    });
    expect(shown.trades[0]).toMatchObject({ tradeNo, status: "SUCCESS" });
    expect(shown.orders.map((o: { orderId: string }) => o.orderId)).toContain(orderId.toString());
    expect(shown.deliveries[0]).toMatchObject({ type: "payment.succeeded", tradeNo, attempts: [{ attempt: 1, httpStatus: 200, acknowledged: true }] });
    expect(shown.clock).toMatchObject({ epochMs: sb.sandbox.clock.now() });
  });

  it("resends a delivered callback as one more attempt", async () => {
    const { sb, r } = await setup();
    const { tradeNo } = await sb.createTrade({ notifyUrl: r.url });
    const paid = await sb.control("POST", `/trades/${tradeNo}/pay`);
    const eventId = paid.json.data.eventId as string;
    await r.waitFor(1);
    await eventually(async () => (await state(sb)).deliveries[0]?.status === "delivered");
    const resend = await fetch(`${sb.url}/sandbox/ui/callbacks/${eventId}/resend`, { method: "POST", headers: { "Content-Type": "application/json", Origin: sb.url } });
    expect(await resend.json()).toEqual({ ok: true });
    const received = await r.waitFor(2);
    expect(received[1]!.body).toBe(received[0]!.body);
    const delivery = await eventually(async () => {
      const d = (await state(sb)).deliveries[0];
      return d?.attempts.length === 2 && d;
    });
    expect(delivery).toMatchObject({ status: "delivered", attempts: [{ acknowledged: true }, { attempt: 2, acknowledged: true }] });

    const unknown = await fetch(`${sb.url}/sandbox/ui/callbacks/evt_nope/resend`, { method: "POST", headers: { "Content-Type": "application/json" } });
    expect(unknown.status).toBe(409);
    expect(await unknown.json()).toEqual({ ok: false, reason: "no callback event evt_nope" });
  });

  it("refuses a resend from another origin, or not sent as JSON", async () => {
    const { sb } = await setup();
    const foreign = await fetch(`${sb.url}/sandbox/ui/callbacks/evt_x/resend`, { method: "POST", headers: { "Content-Type": "application/json", Origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { reason: string }).reason).toContain("https://evil.example");
    const form = await fetch(`${sb.url}/sandbox/ui/callbacks/evt_x/resend`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "a=1" });
    expect(form.status).toBe(403);
    expect(((await form.json()) as { reason: string }).reason).toContain("application/json");
    // The control API's guard: a browser that sends no Origin but marks the request cross-site.
    for (const site of ["cross-site", "same-site"]) {
      const marked = await fetch(`${sb.url}/sandbox/ui/callbacks/evt_x/resend`, { method: "POST", headers: { "Content-Type": "application/json", "Sec-Fetch-Site": site } });
      expect(marked.status, site).toBe(403);
      expect(((await marked.json()) as { reason: string }).reason, site).toContain(`Sec-Fetch-Site: ${site}`);
    }
    const sameOrigin = await fetch(`${sb.url}/sandbox/ui/callbacks/evt_x/resend`, { method: "POST", headers: { "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin", Origin: sb.url } });
    expect(sameOrigin.status).toBe(409); // passed the guard; the event does not exist
  });

  it("forbids framing every kind of answer: X-Frame-Options DENY beside frame-ancestors 'none'", async () => {
    const { sb } = await setup();
    for (const path of ["/sandbox/ui", "/sandbox/ui/state", "/sandbox/clock", "/open-api/v1/merchants", "/v1/merchants", "/docs/", "/no-such-path"]) {
      const response = await fetch(`${sb.url}${path}`);
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
    }
  });
});
