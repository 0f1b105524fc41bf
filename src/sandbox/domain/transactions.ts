// An app's transaction as the domain runs it: the store's transaction (one at a time per app,
// all or nothing), plus the callbacks the change recorded (a payment succeeded, an application
// reviewed), handed to the sender once the transaction has committed, so a callback goes out
// only for a change that was kept.
import type { PreparedCallback } from "../callbacks/dispatcher.js";
import type { SandboxContext } from "../context.js";
import type { RecordsTransaction } from "../store/types.js";

/** The callbacks a transaction recorded, to send after it commits. */
export type Sent = PreparedCallback[];

/** Records the callback in the transaction (the outbox) and queues it for the sender. */
export async function recordCallback(tx: RecordsTransaction, sent: Sent, callback: PreparedCallback): Promise<void> {
  await tx.enqueueCallback(callback.event);
  sent.push(callback);
}

export async function withAppTransaction<T>(ctx: SandboxContext, appKey: string, work: (tx: RecordsTransaction, sent: Sent) => Promise<T>): Promise<T> {
  const sent: Sent = [];
  const result = await ctx.records.transaction(appKey, (tx) => work(tx, sent));
  for (const callback of sent) await ctx.callbacks.dispatch(callback);
  return result;
}
