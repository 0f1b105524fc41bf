// The steps of one interface, run in order. It does what an Express Router of router.use(step)
// layers followed by one error handler does, without matching every layer's path (each one is
// mounted at "/") on every request: next() runs the following step, next(error), a throw or a
// rejected promise goes to the error handler, and whatever the error handler passes on (or
// next() after the last step) goes to the enclosing app.
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";

function settle(result: unknown, next: (error: unknown) => void): void {
  if (result instanceof Promise) result.then(undefined, (error: unknown) => next(error ?? new Error("Rejected promise")));
}

export function pipeline(steps: readonly RequestHandler[], onError: ErrorRequestHandler): RequestHandler {
  return (req: Request, res: Response, done: NextFunction): void => {
    let index = 0;
    let failed = false;
    const fail = (error: unknown): void => {
      if (failed) return done(error);
      failed = true;
      try {
        settle(onError(error, req, res, done), done);
      } catch (thrown) {
        done(thrown);
      }
    };
    const next = (error?: unknown): void => {
      if (error === "route" || error === "router") return done();
      if (error) return fail(error);
      const step = steps[index++];
      if (!step) return done();
      try {
        settle(step(req, res, next), next);
      } catch (thrown) {
        next(thrown ?? new Error("a step threw nothing"));
      }
    };
    next();
  };
}
