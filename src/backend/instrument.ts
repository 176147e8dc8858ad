// Metrics and traces for any backend: instrument() wraps an ObjectStore or
// a Coordinator so that each asynchronous call is timed (observe, which the
// service turns into Prometheus histograms) and traced as a child span of
// the request that made it (`storage.getRange`, `coord.compareAndSwap`).
// Outcomes that are answers rather than failures (an object not found, a
// group to reload) are not counted as errors. With no OpenTelemetry SDK
// registered, spans are the API's no-ops.

import { SpanStatusCode, trace } from '@opentelemetry/api';
import { isGroupNotLoaded } from '../coord/coord';
import { isNotFound } from '../storage/storage';

/** Called once per backend call: its operation, duration and whether it failed. */
export type OpObserver = (op: string, seconds: number, failed: boolean) => void;

const tracer = trace.getTracer('zlake');

export function instrument<T extends object>(
  target: T,
  kind: 'storage' | 'coord',
  backend: string,
  observe: OpObserver,
): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const v = Reflect.get(t, prop, receiver) as unknown;
      if (typeof v !== 'function' || prop === 'subscribe' || typeof prop !== 'string') return v;
      const op = prop;
      return (...args: unknown[]) =>
        tracer.startActiveSpan(`${kind}.${op}`, (span) => {
          span.setAttribute(`zlake.${kind}.backend`, backend);
          if (typeof args[0] === 'string') span.setAttribute(`zlake.${kind}.key`, args[0]);
          const start = process.hrtime.bigint();
          const done = (failed: boolean, e?: unknown) => {
            observe(op, Number(process.hrtime.bigint() - start) / 1e9, failed);
            if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: String(e) });
            span.end();
          };
          let r: unknown;
          try {
            r = (v as (...a: unknown[]) => unknown).apply(t, args);
          } catch (e) {
            done(true, e);
            throw e;
          }
          if (!(r instanceof Promise)) {
            done(false);
            return r;
          }
          return r.then(
            (x) => {
              done(false);
              return x;
            },
            (e) => {
              done(!(isNotFound(e) || isGroupNotLoaded(e)), e);
              throw e;
            },
          );
        });
    },
  });
}
