// The order state machine (DESIGN item 2) in one table, the status history it writes, and the
// order's answer shapes. Callers check the precondition of their operation first and answer
// its own error code; moveOrder refuses anything the table does not allow.
import { formatPlatformTime } from "../clock.js";
import type { OrderRecord, OrderStatus } from "../store/types.js";

export const ORDER_STATUS = {
  PENDING_PAYMENT: 0,
  PAID: 1,
  IN_SERVICE: 2,
  COMPLETED: 3,
  CANCELLED: 4,
  REFUNDED: 5,
} as const satisfies Record<string, OrderStatus>;

/** 0→1 paid, 0→4 cancelled, 1→2 service starts, 1|2→3 write-off, 1→5 refund. */
const MOVES: Record<OrderStatus, readonly OrderStatus[]> = {
  0: [1, 4],
  1: [2, 3, 5],
  2: [3],
  3: [],
  4: [],
  5: [],
};

/** The service-type order (voucher purchase) that write-off and service start apply to. */
export const SERVICE_ORDER_TYPE = 3;

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return MOVES[from].includes(to);
}

export function moveOrder(order: OrderRecord, to: OrderStatus, now: number, reason: string): void {
  if (!canMove(order.status, to)) throw new Error(`order ${order.id}: the move ${order.status} → ${to} is not in the state machine`);
  order.history.push({ fromStatus: order.status, toStatus: to, changeTime: now, reason });
  order.status = to;
}

export function orderView(order: OrderRecord) {
  return {
    id: order.id,
    merchantId: order.merchantId,
    storeId: order.storeId,
    totalAmount: order.totalAmount,
    status: order.status,
    items: order.items.map((item) => ({ itemType: item.itemType, itemId: item.itemId, itemName: item.itemName, price: item.price, quantity: item.quantity })),
    remark: order.remark,
    createTime: formatPlatformTime(order.createTime),
    payTime: order.payTime === null ? null : formatPlatformTime(order.payTime),
    completeTime: order.completeTime === null ? null : formatPlatformTime(order.completeTime),
  };
}

export function historyView(order: OrderRecord) {
  return order.history.map((change) => ({
    orderId: order.id,
    fromStatus: change.fromStatus,
    toStatus: change.toStatus,
    changeTime: formatPlatformTime(change.changeTime),
    reason: change.reason,
  }));
}
