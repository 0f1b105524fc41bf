// How a request answered by a fault is marked (the request state's fault), for the dashboard's
// request record: which fault, what it did, and what became of the operation.
import type { FaultBehaviour } from "./table.js";

export interface FaultMark extends FaultBehaviour {
  /** The fault of the table; null for one given by the X-Sandbox-Fault header. */
  faultId: string | null;
  source: "control" | "header";
  carriedOut: boolean;
  /** The envelope code the operation answered before the fault took over; null when it did not run. */
  operationCode: number | null;
}
