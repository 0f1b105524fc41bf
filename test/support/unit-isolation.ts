// Set-up file of the `unit` project: a unit test opens no socket and starts no process. Without
// this, a test that starts a server in a unit folder would run there silently and make the
// project slow and order-dependent; with it, the test fails and says where it belongs.
// Vitest never lends a project's worker to another project, so the http and packaging
// projects keep the real functions.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

export class UnitIsolationError extends Error {
  override readonly name = "UnitIsolationError";
  constructor(what: string) {
    super(`${what} in the unit project: a unit test opens no socket and starts no process. Move the file to the http or packaging project (vitest.config.ts).`);
  }
}

function forbid(what: string): () => never {
  return () => {
    throw new UnitIsolationError(what);
  };
}

// Servers (http, https, express, net) all listen through net.Server; clients (fetch/undici,
// http.request, tls) all connect through net.Socket.
net.Server.prototype.listen = forbid("net.Server#listen (a server)");
net.Socket.prototype.connect = forbid("net.Socket#connect (a connection, fetch included)");
// spawn, exec, execFile and fork all go through ChildProcess#spawn (public at run time, absent
// from @types/node); the synchronous forms are replaced on the module, and the ESM named exports
// re-synced with it.
(childProcess.ChildProcess.prototype as unknown as { spawn: unknown }).spawn = forbid("child_process (a process)");
childProcess.spawnSync = forbid("child_process.spawnSync (a process)");
childProcess.execSync = forbid("child_process.execSync (a process)");
childProcess.execFileSync = forbid("child_process.execFileSync (a process)");
syncBuiltinESMExports();
