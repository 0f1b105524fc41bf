// Tests that need a real Redis are skipped with the reason where redis-server is missing,
// except under CI, where its absence is a failure (.ci/run installs it).
import { redisServerMissing as probe } from "../../scripts/lib/redis-server.js";

export { startRedisServer, type RedisServer } from "../../scripts/lib/redis-server.js";

export const redisServerMissing: string | undefined = (() => {
  const reason = probe();
  if (reason && process.env.CI) throw new Error(`${reason}: CI must have it`);
  return reason;
})();
