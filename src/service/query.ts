// POST /query: compile the query against the lake, stream its results in
// the negotiated format, and with ctrl=T interleave the reference's control
// messages (QueryChannelSet/End, QueryStats, QueryError) in ZNG and ZJSON.
//
// Errors before the first output is committed (see output.ts) answer with
// a 4xx/5xx status and the JSON error body. An error after that is
// reported in-band with ctrl=T (a QueryError message, as the reference
// does) and otherwise by cutting the connection, so a client never takes a
// truncated result for a whole one; GET /query/status/{request-id} tells
// what happened either way.

import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { Request, Response } from 'express';
import { ValueWriter } from '../formats/io';
import { formatByName } from '../formats/registry';
import { ZngWriter } from '../formats/zng';
import { nowNs } from '../lake/config';
import { invalid } from '../lake/errors';
import { errorResponse, HttpError } from './errors';
import { QueryEngine, RunningQuery } from './engine';
import { Logger } from './log';
import { Metrics } from './metrics';
import { formatToMediaType } from './mime';
import { HeldOutput, HeldOutputOptions } from './output';
import { boolParam, readPayload, recordField, stringField } from './request';
import { respondError } from './respond';
import { Progress, queryStatsJSON, queryStatsZSON } from './responses';
import { Lake } from '../lake';

/** How often QueryStats goes out while a query runs with ctrl=T. */
const STATS_INTERVAL_MS = 1000;

/** What GET /query/status/{id} reports: the running and recently finished queries. */
export class QueryStatusTable {
  private entries = new Map<string, { done: Promise<string>; finish: (err: string) => void }>();

  constructor(private keepMs = 10000) {}

  start(id: string): (err: unknown) => void {
    let finish!: (err: string) => void;
    const done = new Promise<string>((resolve) => (finish = resolve));
    const entry = { done, finish };
    this.entries.set(id, entry);
    let finished = false;
    return (err: unknown) => {
      if (finished) return;
      finished = true;
      entry.finish(err ? (err instanceof Error ? err.message : String(err)) : '');
      // Kept a while so a client can ask after the response ends.
      setTimeout(() => {
        if (this.entries.get(id) === entry) this.entries.delete(id);
      }, this.keepMs).unref();
    };
  }

  /** The query's error ("" for none) once it finishes; undefined for an unknown ID. */
  wait(id: string): Promise<string> | undefined {
    return this.entries.get(id)?.done;
  }
}

export interface QueryHandlerDeps {
  lake: Lake;
  engine: () => QueryEngine;
  metrics: Metrics;
  statuses: QueryStatusTable;
  output?: HeldOutputOptions;
  /** Milliseconds a query may run (-limit.querytime); 0 or absent: no limit. */
  timeoutMs?: number;
}

type Control =
  | { type: 'QueryChannelSet' | 'QueryChannelEnd'; channel: number }
  | { type: 'QueryStats'; progress: Progress }
  | { type: 'QueryError'; error: string };

/** Writes control messages the way the reference encodes them per format. */
class ControlWriter {
  private start = nowNs();

  constructor(
    private writer: ValueWriter,
    private format: string,
  ) {}

  async write(c: Control): Promise<void> {
    if (this.format === 'zng') {
      await (this.writer as ZngWriter).writeControl(this.zson(c));
    } else {
      await this.writer.writeControl!({ type: c.type, value: this.json(c) });
    }
  }

  private zson(c: Control): string {
    switch (c.type) {
      case 'QueryChannelSet':
      case 'QueryChannelEnd':
        return `{channel_id:${c.channel}}(=${c.type})\n`;
      case 'QueryStats':
        return queryStatsZSON(this.start, nowNs(), c.progress);
      case 'QueryError':
        return `{error:${JSON.stringify(c.error)}}(=QueryError)\n`;
    }
  }

  private json(c: Control): unknown {
    switch (c.type) {
      case 'QueryChannelSet':
      case 'QueryChannelEnd':
        return { channel_id: c.channel };
      case 'QueryStats':
        return queryStatsJSON(this.start, nowNs(), c.progress);
      case 'QueryError':
        return { error: c.error };
    }
  }
}

export async function handleQuery(
  deps: QueryHandlerDeps,
  req: Request,
  res: Response,
  format: string,
  requestId: string,
  log: Logger,
): Promise<void> {
  const payload = await readPayload(req);
  const text = stringField(payload, 'query');
  const head = recordField(payload, 'head');
  const pool = stringField(head, 'pool');
  const branch = stringField(head, 'branch') || 'main';
  const ctrl = boolParam(req, 'ctrl');
  const f = formatByName(format);
  if (!f?.newWriter) throw invalid(`unsupported output format: ${format}`);

  const finish = deps.statuses.start(requestId);
  const started = process.hrtime.bigint();
  let outcome = 'error';
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.on('close', onClose);
  // A query past the time limit is cancelled like one whose client left,
  // but answered: 408 if nothing was sent yet, else a QueryError control
  // message (with ctrl=T) or a cut-off response.
  let timedOut: HttpError | null = null;
  const limit = deps.timeoutMs ?? 0;
  const deadline =
    limit > 0
      ? setTimeout(() => {
          timedOut = new HttpError(
            'invalid',
            `query exceeded the time limit of ${limit / 1000}s (-limit.querytime)`,
            408,
          );
          abort.abort();
        }, limit)
      : null;
  const observe = () => {
    if (deadline) clearTimeout(deadline);
    deps.metrics.queryDuration.observe(
      { outcome },
      Number(process.hrtime.bigint() - started) / 1e9,
    );
  };
  log.debug('Running Query', { query: text });

  let run: RunningQuery;
  try {
    run = await traced('query.compile', () =>
      deps.engine().compile({
        lake: deps.lake,
        query: text,
        head: { pool, branch },
        signal: abort.signal,
        onWarning: (msg) => log.debug('query warning', { warning: msg }),
        // The ZNG writer copies every value it is given before write()
        // returns, and the loop below asks for the next batch only then.
        transientOutput: format === 'zng',
      }),
    );
  } catch (e) {
    finish(e);
    deps.metrics.queries.inc({ outcome: 'error' });
    res.off('close', onClose);
    observe();
    throw e;
  }

  const out = new HeldOutput(res, formatToMediaType(format), deps.output);
  const writer = f.newWriter(out, { pretty: 0 });
  const controls =
    ctrl && (format === 'zng' || format === 'zjson') ? new ControlWriter(writer, format) : null;
  let statsDue = false;
  const ticker = controls
    ? setInterval(() => {
        statsDue = true;
      }, STATS_INTERVAL_MS)
    : null;
  let channel = -1;
  let written = 0;
  // The run's span: storage reads made while pulling results are its children.
  const runSpan = tracer.startSpan('query.run');
  const runCtx = trace.setSpan(context.active(), runSpan);
  try {
    for (;;) {
      if (abort.signal.aborted) throw new ClientGone();
      const o = await context.with(runCtx, () => run.next());
      if (!o) break;
      if (o.kind === 'end') {
        await controls?.write({ type: 'QueryChannelEnd', channel: o.channel });
        continue;
      }
      if (o.channel !== channel) {
        channel = o.channel;
        await controls?.write({ type: 'QueryChannelSet', channel });
      }
      await writer.write(o.values);
      written += o.values.length;
      if (statsDue) {
        statsDue = false;
        await controls?.write({ type: 'QueryStats', progress: run.progress() });
      }
    }
    await controls?.write({ type: 'QueryStats', progress: run.progress() });
    await writer.close();
    finish(null);
    deps.metrics.queries.inc({ outcome: 'ok' });
    outcome = 'ok';
  } catch (err) {
    const e: unknown = timedOut ?? err;
    outcome = timedOut ? 'timeout' : 'error';
    const gone = !timedOut && (abort.signal.aborted || err instanceof ClientGone);
    if (gone) outcome = 'cancelled';
    finish(gone ? 'client disconnected' : e);
    deps.metrics.queries.inc({ outcome: gone ? 'cancelled' : 'error' });
    if (gone) {
      out.discard();
      res.destroy();
    } else if (!out.isCommitted) {
      out.discard();
      respondError(res, e);
    } else if (controls) {
      const status = errorResponse(e).status;
      if (status >= 500) log.warn('Error', { status, error: (e as Error).message });
      await controls
        .write({ type: 'QueryError', error: (e as Error).message })
        .then(() => writer.close())
        .catch(() => res.destroy());
    } else {
      out.discard();
      res.destroy();
    }
  } finally {
    runSpan.setAttribute('zlake.query.outcome', outcome);
    runSpan.end();
    observe();
    if (ticker) clearInterval(ticker);
    res.off('close', onClose);
    await run.close().catch(() => undefined);
    const p = run.progress();
    deps.metrics.queryRecordsRead.inc(p.recordsRead);
    deps.metrics.queryBytesRead.inc(p.bytesRead);
    deps.metrics.queryRecordsWritten.inc(written);
    deps.metrics.queryBytesWritten.inc(out.sent);
  }
}

const tracer = trace.getTracer('zlake');

/** Runs fn in a child span of the request's. */
function traced<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, async (span) => {
    try {
      return await fn();
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
      throw e;
    } finally {
      span.end();
    }
  });
}

class ClientGone extends Error {
  constructor() {
    super('client disconnected');
  }
}
