// Data the checks share, created on first use and only ever by the checker itself: its own
// customer, orders and trades. Nothing else on the server is changed.
import { CheckSkipped } from "./errors.js";
import type { RequestInput } from "./requests.js";

type Id = number | bigint;
const PLACEHOLDER_NOTIFY_URL = "https://example.invalid/mop-check/notify";

/** What the resources need from the checker (its CheckContext): the run, and signed calls. */
export interface ResourceCalls {
  /** Unique per run (CheckContext.runId). */
  readonly runId: string;
  /** The authorised merchants given in the options. */
  readonly merchantIds: readonly string[];
  /** Sends a signed request; the answer's data, whatever the answer was. */
  data(operationId: string, input: RequestInput): Promise<unknown>;
  /** Sends a signed request that must succeed and conform (else a CheckFailure citing that call and its operation's rule); its data. */
  setup(operationId: string, input: RequestInput): Promise<unknown>;
}

export class SharedResources {
  private readonly memo = new Map<string, Promise<unknown>>();
  private sequence = 0;

  constructor(private readonly calls: ResourceCalls) {}

  /** Made once per run, whichever check asks first. */
  once<T>(key: string, make: () => Promise<T>): Promise<T> {
    let promise = this.memo.get(key) as Promise<T> | undefined;
    if (!promise) {
      promise = make();
      this.memo.set(key, promise);
    }
    return promise;
  }

  /** A unique suffix for outTradeNo and other keys the checker invents. */
  unique(prefix: string): string {
    this.sequence += 1;
    return `${prefix}-${this.calls.runId}-${this.sequence}`;
  }

  merchantId(): Promise<string> {
    return this.once("merchant", async () => {
      const given = this.calls.merchantIds[0];
      if (given) return given;
      const data = (await this.calls.data("listStores", { query: { pageSize: 100 } })) as { list?: Array<{ merchantId: Id; status: number }> } | undefined;
      const store = data?.list?.find((s) => s.status === 0) ?? data?.list?.[0];
      if (!store) throw new CheckSkipped("no authorised merchant found (pass --merchant-id)");
      return String(store.merchantId);
    });
  }

  /** The syncCustomer body of the checker's own customer: sent again, it must answer the same appUserId. */
  customerBody(): { openUserId: string; nickname: string } {
    return { openUserId: `mop-check-${this.calls.runId}`, nickname: "mop check" };
  }

  appUserId(): Promise<Id> {
    return this.once("customer", async () => {
      const data = (await this.calls.setup("syncCustomer", { body: this.customerBody() })) as { appUserId: Id };
      return data.appUserId;
    });
  }

  /** A normal store of the merchant, or undefined when it has none. */
  storeId(): Promise<Id | undefined> {
    return this.once("store", async () => {
      const merchantId = await this.merchantId();
      const data = (await this.calls.setup("listStores", { query: { merchantId, pageSize: 100 } })) as { list: Array<{ id: Id; status: number }> };
      return data.list.find((s) => s.status === 0)?.id;
    });
  }

  /** The body of a fresh order: a product purchase, or a voucher purchase (service type). */
  async orderBody(kind: "product" | "voucher" = "product"): Promise<Record<string, unknown>> {
    const [merchantId, userId] = await Promise.all([this.merchantId(), this.appUserId()]);
    return {
      merchantId: BigInt(merchantId),
      userId,
      orderType: kind === "product" ? 1 : 3,
      remark: "created by mop check",
      items: [{ itemType: kind === "product" ? 1 : 4, itemId: 1, itemName: kind === "product" ? "mop check item" : "mop check voucher", price: 100, quantity: 2 }],
    };
  }

  /** Creates a new order and returns its id exactly as the server sent it. */
  async newOrder(kind: "product" | "voucher" = "product"): Promise<Id> {
    return (await this.calls.setup("createOrder", { body: await this.orderBody(kind) })) as Id;
  }

  /**
   * The notifyUrl of every trade but the callback check's: an HTTPS placeholder that never
   * answers, so that a server refusing http:// notifyUrls (as the contract says) is judged
   * fairly everywhere else (DESIGN item 9).
   */
  notifyUrl(): string {
    return PLACEHOLDER_NOTIFY_URL;
  }

  async cashierBody(patch: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return {
      merchantId: BigInt(await this.merchantId()),
      outTradeNo: this.unique("chk"),
      totalAmount: 100,
      subject: "mop check",
      notifyUrl: this.notifyUrl(),
      ...patch,
    };
  }

  /** A first card template of the merchant, or skip when it has none. */
  cardTemplate(): Promise<{ id: Id; cardType: number }> {
    return this.once("template", async () => {
      const merchantId = await this.merchantId();
      const data = (await this.calls.setup("listCardTemplates", { query: { merchantId } })) as { list: Array<{ id: Id; cardType: number }> };
      const template = data.list.find((t) => t.cardType !== 0) ?? data.list[0];
      if (!template) throw new CheckSkipped("the merchant has no card templates");
      return template;
    });
  }
}
