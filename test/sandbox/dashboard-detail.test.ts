// The dashboard's request detail and what it records: every refusal with its diagnosis and the
// API's own message, whichever step refused it (before the body is read included); headers with
// secrets masked; bounded bodies; the orders and trades a request touched; copy as curl; the
// dashboard's own reads counted and kept out of the request log; the clock's reset and the
// 100004 message while the clock is moved; callback attempts marked manual or scheduled, with
// the signature headers sent.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { KEPT_BODY_BYTES } from "../../src/sandbox/dashboard/recorder.js";
import { DEMO, eventually, startReceiver, startSandbox, type Receiver, type TestSandbox } from "../support/sandbox.js";

const run = promisify(execFile);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(options: Parameters<typeof startSandbox>[0] = {}): Promise<{ sb: TestSandbox; r: Receiver }> {
  const sb = await startSandbox({ allowInsecureNotify: true, callbackSchedule: [3_600_000], callbackTimeoutMs: 2000, ...options });
  const r = await startReceiver();
  cleanups.push(() => sb.close(), () => r.close());
  return { sb, r };
}

async function state(sb: TestSandbox) {
  return (await (await fetch(`${sb.url}/sandbox/ui/state`)).json()) as any;
}

async function detail(sb: TestSandbox, id: number) {
  const response = await fetch(`${sb.url}/sandbox/ui/requests/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

/** The newest recorded request whose URL contains `part`. */
async function latest(sb: TestSandbox, part: string) {
  const line = (await state(sb)).requests.find((r: { url: string }) => r.url.includes(part));
  expect(line, part).toBeDefined();
  return line;
}

const nowSeconds = (sb: TestSandbox) => Math.floor(sb.sandbox.clock.now() / 1000);

describe("the dashboard's request detail", () => {
  it("shows method, full URL, masked headers, both bodies, timing and the orders and trades a request touched", async () => {
    const { sb, r } = await setup();
    const orderId = await sb.createOrder({ orderType: 1 });
    const paid = await sb.signed({ path: `/orders/${orderId}/pay`, body: { merchantId: 10001, notifyUrl: r.url } });
    expect(paid.json.code).toBe(0);
    const tradeNo = String(paid.json.data.tradeNo);

    const line = await latest(sb, `/orders/${orderId}/pay`);
    expect(line).toMatchObject({ method: "POST", operationId: "payOrder", status: 200, code: 0, outcome: "ok", app: DEMO.appKey, diagnosis: null });
    const shown = await detail(sb, line.id);
    expect(shown.url).toBe(`/open-api/v1/orders/${orderId}/pay`);
    expect(shown.durationMs).toEqual(expect.any(Number));
    expect(shown.appVerified).toBe(true);
    const headers = Object.fromEntries(shown.headers.map(([name, value]: [string, string]) => [name.toLowerCase(), value]));
    expect(headers["x-app-key"]).toBe(DEMO.appKey);
    expect(headers["x-nonce"]).toMatch(/^[\w-]{8,64}$/);
    expect(headers["x-sign"]).toMatch(/^.{6}… \(44 characters, masked\)$/);
    expect(shown.requestBody).toEqual({ kind: "kept", text: JSON.stringify({ merchantId: 10001, notifyUrl: r.url }), bytes: expect.any(Number), truncated: false });
    expect(shown.responseBody.kind).toBe("kept");
    expect(shown.responseBody.text).toContain(tradeNo);
    expect(shown.links).toEqual(expect.arrayContaining([{ kind: "order", id: orderId.toString() }, { kind: "trade", id: tradeNo }]));
    expect(shown.fault).toBeNull();

    // A key-based request: the Authorization header is masked too.
    await sb.keyed("/merchants");
    const keyed = await detail(sb, (await latest(sb, "/v1/merchants")).id);
    const authorization = keyed.headers.find(([name]: [string]) => name.toLowerCase() === "authorization")[1];
    expect(authorization).toBe("Bearer demo… (masked)");
    expect(JSON.stringify(keyed)).not.toContain("demo-api-key");
  });

  it("a 100009 shows the API's message naming the field; a body with an app secret in it is shown scrubbed", async () => {
    const { sb } = await setup();
    const refused = await sb.signed({ path: "/customers/sync", body: { openUserId: "", nickname: DEMO.appSecret } });
    expect(refused.json.code).toBe(100009);
    const line = await latest(sb, "/customers/sync");
    expect(line).toMatchObject({ status: 400, code: 100009, outcome: "refused", diagnosis: "VALIDATION_FAILED", operationId: "syncCustomer" });
    expect(line.message).toBe(refused.json.msg);
    expect(line.message).toContain("openUserId");
    const shown = await detail(sb, line.id);
    expect(shown.error).toMatchObject({ name: "VALIDATION_FAILED", meaning: expect.any(String) });
    expect(shown.requestBody.text).toContain("openUserId");
    expect(JSON.stringify(shown)).not.toContain(DEMO.appSecret);
    expect(JSON.stringify(await state(sb))).not.toContain(DEMO.appSecret);
  });

  it("a POST refused before its body is read (stale timestamp 100004, unknown app key 100002) shows its operation and diagnosis", async () => {
    const { sb } = await setup();
    const body = { merchantId: 10001, userId: 880000000001, orderType: 1, items: [] };
    const stale = await sb.signed({ path: "/orders", body, timestamp: String(nowSeconds(sb) - 3600), nonce: "stale-nonce-0001" });
    expect(stale.json.code).toBe(100004);
    const staleLine = await latest(sb, "/open-api/v1/orders");
    expect(staleLine).toMatchObject({ method: "POST", operationId: "createOrder", status: 401, code: 100004, diagnosis: "TIMESTAMP_OUT_OF_WINDOW", message: stale.json.msg });
    const staleDetail = await detail(sb, staleLine.id);
    expect(staleDetail.signature).toMatchObject({ name: "TIMESTAMP_OUT_OF_WINDOW", bodyRead: false, expectedStringToSign: `${DEMO.appKey}${nowSeconds(sb) - 3600}stale-nonce-0001` });
    expect(staleDetail.requestBody).toEqual({ kind: "not-read" });
    expect(staleDetail.curl.unavailable).toContain("before its body was read");

    const unknown = await sb.signed({ path: "/orders", body, app: { appKey: "no-such-app", appSecret: "whatever-secret" } });
    expect(unknown.json.code).toBe(100002);
    const unknownLine = await latest(sb, "/open-api/v1/orders");
    expect(unknownLine).toMatchObject({ operationId: "createOrder", code: 100002, diagnosis: "APP_KEY_UNKNOWN", app: "no-such-app" });
    expect((await detail(sb, unknownLine.id)).appVerified).toBe(false);
  });

  it("keeps bodies up to a bound, and forgets a request once 100 newer ones were made", async () => {
    const { sb } = await setup();
    const big = { openUserId: "u-big", nickname: "x".repeat(40), avatarUrl: `https://a.example/${"y".repeat(900)}` };
    await sb.signed({ path: "/customers/sync", body: { ...big, extra: "z".repeat(20_000) } });
    const first = await latest(sb, "/customers/sync");
    const shown = await detail(sb, first.id);
    expect(shown.requestBody).toMatchObject({ kind: "kept", truncated: true });
    expect(Buffer.byteLength(shown.requestBody.text)).toBeLessThanOrEqual(KEPT_BODY_BYTES);
    expect(shown.requestBody.bytes).toBeGreaterThan(20_000);
    expect(shown.curl.unavailable).toContain("longer than the dashboard keeps");
    for (let i = 0; i < 100; i++) await fetch(`${sb.url}/sandbox/clock`);
    const gone = await fetch(`${sb.url}/sandbox/ui/requests/${first.id}`);
    expect(gone.status).toBe(404);
    expect((await state(sb)).requests).toHaveLength(100);
  });

  it("copies a signed request as a curl command that signs afresh with the secret from the environment, and it runs", async () => {
    const { sb } = await setup();
    await sb.signed({ path: "/merchants?pageNo=1&pageSize=5" });
    const shown = await detail(sb, (await latest(sb, "/merchants")).id);
    const command: string = shown.curl.command;
    expect(command).toContain(`--curl '${sb.url}/open-api/v1/merchants?pageNo=1&pageSize=5'`);
    expect(command).toContain('--app-secret "$MOP_APP_SECRET"');
    expect(command).not.toContain(DEMO.appSecret);
    // Run as a developer would paste it, with `npx mop` standing for this checkout's CLI; the
    // sandbox's base clock is the test's, so mop sign is given the sandbox's time.
    const mop = `mop() { node --import tsx -e 'import("./src/cli/main.ts").then(async (m) => { process.exitCode = await m.main(process.argv.slice(1)); })' -- "$@"; }`;
    const local = `${mop}\n${command.replace("npx mop sign", `mop sign --timestamp ${nowSeconds(sb)}`)}`;
    const { stdout } = await run("bash", ["-c", local], { env: { ...process.env, MOP_APP_SECRET: DEMO.appSecret }, cwd: process.cwd() });
    expect(JSON.parse(stdout)).toMatchObject({ code: 0, data: { page: 1, size: 5 } });
  }, 30_000);

  it("keeps the dashboard's own reads out of the request log and counts them; control requests are logged", async () => {
    const { sb } = await setup();
    for (let i = 0; i < 5; i++) await state(sb);
    await fetch(`${sb.url}/sandbox/ui`);
    await sb.control("GET", "/clock");
    const counted = await state(sb);
    expect(counted.ownRequests).toBe(7); // five reads of the state, the page, and this read

    expect(sb.logs.requests.filter((r) => r.path.startsWith("/sandbox/ui"))).toEqual([]);
    expect(sb.logs.requests.map((r) => r.path)).toContain("/sandbox/clock");
    expect(counted.requests.map((r: { url: string }) => r.url)).toEqual(["/sandbox/clock"]);
  });
});

describe("the clock's reset", () => {
  it("a 100004 while the clock is moved names the sandbox clock; resetClock brings it back; resetState keeps the offset and says so", async () => {
    const { sb } = await setup();
    await sb.control("POST", "/clock/advance", { seconds: 3600 });
    // Signed with the real (base) clock, as a client that never heard of the move signs.
    const realSeconds = Math.floor((sb.sandbox.clock.now() - 3_600_000) / 1000);
    const get = await sb.signed({ path: "/merchants?pageNo=1", timestamp: String(realSeconds) });
    expect(get.json.code).toBe(100004);
    expect(get.json.msg).toContain("The sandbox clock is 3600 s ahead of real time");
    expect(get.json.msg).toContain("POST /sandbox/clock/reset");
    // A POST refused before its body is read says the same.
    const post = await sb.signed({ path: "/customers/sync", body: { openUserId: "clock-1" }, timestamp: String(realSeconds) });
    expect(post.json.code).toBe(100004);
    expect(post.json.msg).toContain("The sandbox clock is 3600 s ahead of real time");

    const reset = await sb.control("POST", "/reset");
    expect(reset.json.data.clockOffsetSeconds).toBe(3600);
    const back = await sb.control("POST", "/clock/reset");
    expect(back.json).toMatchObject({ code: 0, data: { offsetSeconds: 0 } });
    expect((await sb.control("GET", "/clock")).json.data.offsetSeconds).toBe(0);
    const fresh = await sb.signed({ path: "/merchants?pageNo=1" });
    expect(fresh.json.code).toBe(0);
    // In real time the message is the plain one.
    const stale = await sb.signed({ path: "/merchants?pageNo=1", timestamp: String(nowSeconds(sb) - 3600) });
    expect(stale.json.msg).not.toContain("sandbox clock");
  });
});

describe("callback cards", () => {
  it("mark each attempt scheduled or manual, with the signature headers sent (X-Sign masked)", async () => {
    const { sb, r } = await setup();
    const { tradeNo } = await sb.createTrade({ notifyUrl: r.url });
    r.script.push({ status: 500 });
    const paid = await sb.control("POST", `/trades/${tradeNo}/pay`);
    const eventId = paid.json.data.eventId as string;
    await r.waitFor(1);
    await eventually(async () => (await state(sb)).deliveries[0]?.attempts.length === 1);
    const resend = await fetch(`${sb.url}/sandbox/ui/callbacks/${eventId}/resend`, { method: "POST", headers: { "Content-Type": "application/json" } });
    expect(resend.status).toBe(200);
    const received = await r.waitFor(2);
    const delivery = await eventually(async () => {
      const d = (await state(sb)).deliveries[0];
      return d?.attempts.length === 2 && d;
    });
    expect(delivery.body).toBe(received[0]!.body);
    expect(delivery.attempts.map((a: { trigger: string }) => a.trigger)).toEqual(["scheduled", "manual"]);
    const [first, second] = delivery.attempts;
    expect(first).toMatchObject({ httpStatus: 500, responseBody: "fail", headers: { "X-App-Key": DEMO.appKey, "X-Nonce": received[0]!.headers["x-nonce"], "X-Timestamp": received[0]!.headers["x-timestamp"] } });
    expect(first.headers["X-Sign"]).toBe(`${String(received[0]!.headers["x-sign"]).slice(0, 6)}… (44 characters, masked)`);
    expect(second.headers["X-Nonce"]).toBe(received[1]!.headers["x-nonce"]);
    // The control API shows the same, and its answer still fits its spec.
    const listed = await sb.control("GET", `/callbacks?eventId=${eventId}`);
    expect(listed.json.data.list[0].attempts[1]).toMatchObject({ trigger: "manual", headers: { "X-App-Key": DEMO.appKey } });
    expect(JSON.stringify(listed.json)).not.toContain(String(received[0]!.headers["x-sign"]));
  });
});

describe("orders and trades in words", () => {
  it("shows type and status as the spec's words, and offers Start service only for a paid service-type order", async () => {
    const { sb } = await setup();
    const product = await sb.createOrder({ orderType: 1 });
    const voucher = await sb.createOrder({ orderType: 3 });
    const pay = await sb.signed({ path: `/orders/${voucher}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } });
    await sb.control("POST", `/trades/${pay.json.data.tradeNo}/pay`);
    const { orders, trades } = await state(sb);
    const byId = (id: bigint) => orders.find((o: { orderId: string }) => o.orderId === id.toString());
    expect(byId(product)).toMatchObject({ orderTypeWord: "product purchase", statusWord: "pending payment", canStartService: false });
    expect(byId(voucher)).toMatchObject({ orderTypeWord: "voucher purchase (service type)", statusWord: "paid", canStartService: true });
    expect(trades[0]).toMatchObject({ status: "SUCCESS", statusMeaning: "paid" });
  });
});

describe("an http notifyUrl without --allow-insecure-notify", () => {
  it("is refused with a message that names the flag (loopback); another host keeps the plain HTTPS rule", async () => {
    const { sb } = await setup({ allowInsecureNotify: false });
    const base = { merchantId: 10001, totalAmount: 100, subject: "Tea" };
    const loopback = await sb.signed({ path: "/payment/cashier/create", body: { ...base, outTradeNo: "T-http-1", notifyUrl: "http://127.0.0.1:3000/cb" } });
    expect(loopback.json.code).toBe(100009);
    expect(loopback.json.msg).toContain("body.notifyUrl must be an https:// URL");
    expect(loopback.json.msg).toContain("--allow-insecure-notify");
    const elsewhere = await sb.signed({ path: "/payment/cashier/create", body: { ...base, outTradeNo: "T-http-2", notifyUrl: "http://app.example.com/cb" } });
    expect(elsewhere.json.code).toBe(100009);
    expect(elsewhere.json.msg).not.toContain("--allow-insecure-notify");
    expect((await latest(sb, "/payment/cashier/create")).message).toBe(elsewhere.json.msg);
  });
});
