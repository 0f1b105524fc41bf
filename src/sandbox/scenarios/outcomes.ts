// Payment outcomes (docs/scenarios.md): how paying a trade ends when it is not simply SUCCESS.
// Asked for explicitly (payTrade's { outcome }, the cashier page's buttons), or by the trade's
// totalAmount, for apps that cannot reach the control API (a shared sandbox, a phone in a test
// lab). The amounts are ¥666,666.0x: no ordinary test amount is one of them. docs/scenarios.md
// and the signed spec's description of the sandbox server list this table; a test checks both.

/** How long a payment stays UNKNOWN when nothing else is said. */
export const DEFAULT_UNKNOWN_FOR_SECONDS = 60;

export type SettledStatus = "SUCCESS" | "CLOSED";

/** What paying a trade does. */
export type PaymentOutcome =
  | { kind: "success" }
  /** UNKNOWN for `forSeconds` (sandbox clock), then `then`; forSeconds null: UNKNOWN until settled by hand. */
  | { kind: "unknown"; forSeconds: number | null; then: SettledStatus }
  /** The buyer closes the cashier instead of paying: CLOSED, no callback. */
  | { kind: "closed-by-buyer" };

export interface OutcomeAmount {
  totalAmount: number;
  outcome: PaymentOutcome;
  /** One line for the docs and the cashier page. */
  effect: string;
}

export const OUTCOME_AMOUNTS: readonly OutcomeAmount[] = [
  {
    totalAmount: 66_666_601,
    outcome: { kind: "unknown", forSeconds: DEFAULT_UNKNOWN_FOR_SECONDS, then: "SUCCESS" },
    effect: `a slow confirmation: UNKNOWN for ${DEFAULT_UNKNOWN_FOR_SECONDS} s, then SUCCESS with its callback`,
  },
  {
    totalAmount: 66_666_602,
    outcome: { kind: "unknown", forSeconds: DEFAULT_UNKNOWN_FOR_SECONDS, then: "CLOSED" },
    effect: `UNKNOWN for ${DEFAULT_UNKNOWN_FOR_SECONDS} s, then CLOSED (the payment failed after all; no callback)`,
  },
  {
    totalAmount: 66_666_603,
    outcome: { kind: "unknown", forSeconds: null, then: "SUCCESS" },
    effect: "ends in UNKNOWN: it stays UNKNOWN until settled through the control API (payTrade or closeTrade) or a reset",
  },
  {
    totalAmount: 66_666_604,
    outcome: { kind: "closed-by-buyer" },
    effect: "the buyer closes the cashier instead of paying: CLOSED, no callback",
  },
];

/** The outcome a trade's amount asks for, if it is one of the table's. */
export function outcomeByAmount(totalAmount: number): OutcomeAmount | undefined {
  return OUTCOME_AMOUNTS.find((entry) => entry.totalAmount === totalAmount);
}

/** An explicit request (payTrade's body, the cashier page's button) wins over the amount; the amount over plain success. */
export function chooseOutcome(totalAmount: number, asked: { outcome?: "success" | "unknown"; unknownForSeconds?: number; then?: SettledStatus } = {}): PaymentOutcome {
  if (asked.outcome === "success") return { kind: "success" };
  if (asked.outcome === "unknown") return { kind: "unknown", forSeconds: asked.unknownForSeconds ?? DEFAULT_UNKNOWN_FOR_SECONDS, then: asked.then ?? "SUCCESS" };
  return outcomeByAmount(totalAmount)?.outcome ?? { kind: "success" };
}
