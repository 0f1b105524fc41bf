// Tests that need a real PostgreSQL start a throwaway cluster (scripts/lib/postgres-server.ts),
// one per test file, with a database per test. They are skipped with the reason where Debian's
// postgresql is missing, except under CI, where its absence is a failure (.ci/run installs it).
import { postgresServerMissing as probe } from "../../scripts/lib/postgres-server.js";

export { startPostgresServer, type PostgresServer } from "../../scripts/lib/postgres-server.js";

export const postgresServerMissing: string | undefined = (() => {
  const reason = probe();
  if (reason && process.env.CI) throw new Error(`${reason}: CI must have it`);
  return reason;
})();

let databases = 0;

/** A fresh database name for one test. */
export function databaseName(label: string): string {
  databases += 1;
  return `mop_${label.toLowerCase().replace(/[^a-z0-9]+/g, "_").slice(0, 40)}_${process.pid}_${databases}`;
}
