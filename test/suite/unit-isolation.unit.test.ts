// The unit project's set-up file really refuses sockets and processes (this file is in the unit
// project: test/suite/projects.unit.test.ts proves it), so a server test put in a unit folder fails
// and names the projects it belongs to instead of slowing the quick loop down.
import { execFile, execFileSync, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { UnitIsolationError } from "../support/unit-isolation.js";

const refusal = /in the unit project: a unit test opens no socket and starts no process\. Move the file to the http or packaging project/;

describe("the unit project", () => {
  it("refuses to listen", () => {
    const server = createServer();
    expect(() => server.listen(0, "127.0.0.1")).toThrow(UnitIsolationError);
    expect(() => server.listen(0, "127.0.0.1")).toThrow(refusal);
  });

  // Port 4: closed, and not one fetch refuses on its own ("bad port").
  it("refuses to connect, fetch included", async () => {
    expect(() => connect({ host: "127.0.0.1", port: 4 })).toThrow(UnitIsolationError);
    const failure = await fetch("http://127.0.0.1:4/").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as Error & { cause?: unknown }).cause).toBeInstanceOf(UnitIsolationError);
  });

  it("refuses to start a process, in every form", () => {
    expect(() => spawn(process.execPath, ["--version"])).toThrow(UnitIsolationError);
    expect(() => execFile(process.execPath, ["--version"])).toThrow(UnitIsolationError);
    expect(() => spawnSync(process.execPath, ["--version"])).toThrow(UnitIsolationError);
    expect(() => execFileSync(process.execPath, ["--version"])).toThrow(UnitIsolationError);
  });
});
