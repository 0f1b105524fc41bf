// Shared vocabulary of the breaking-change check.

/**
 * breaking: an existing client (or an app's callback receiver) can fail after the change;
 * needs a major version. warning: strict clients may notice; review, no major needed.
 * info: additions worth listing in the changelog.
 */
export type Level = "breaking" | "warning" | "info";

/**
 * Who produces the data. "request": the client writes it and the server must keep accepting
 * what it accepted before. "response": the server writes it and the client must keep
 * understanding it. Callbacks (webhooks) swap the roles: the platform sends the request.
 */
export type Direction = "request" | "response";

export interface Finding {
  level: Level;
  /** Stable id of the rule, e.g. "request-field-removed"; tests assert on it. */
  rule: string;
  /** Operation or callback, then the place inside it. */
  where: string;
  message: string;
}

export type Doc = Record<string, any>;

export class Findings {
  readonly list: Finding[] = [];
  add(level: Level, rule: string, where: string, message: string): void {
    this.list.push({ level, rule, where, message });
  }
}

export function flip(direction: Direction): Direction {
  return direction === "request" ? "response" : "request";
}
