// GET /events: server-sent events announcing lake changes, made on any
// replica, in the order they became visible. Each event goes to every
// connected client, encoded in the client's format (ZSON unless Accept
// says otherwise), as the reference writes them, with an `id:` line so a
// client that reconnects with Last-Event-ID resumes after it:
//
//     id: 1764037000123-0
//     event: branch-commit
//     data: {commit_id:0x...(=KSUID),pool_id:0x...(KSUID),branch:"main",parent:""}(=EventBranchCommit)
//
// followed by a blank line (and the reference's extra newline). A comment
// line goes out every keep-alive interval so idle streams survive proxies.
//
// Writers never wait on subscribers: an event is queued to each client's
// socket and the publisher moves on. A client whose socket stops taking
// data accumulates a backlog; past a bound it is disconnected (it can
// reconnect and re-read the state it missed).

import { Request, Response } from 'express';
import { Lake } from '../lake';
import { LakeEvent } from '../lake/events';
import { invalid } from '../lake/errors';
import { Logger } from './log';
import { Metrics } from './metrics';
import { negotiate } from './mime';
import { encodeValues } from './respond';
import { eventValue } from './responses';

/** Formats whose encoding of one value is text (usable in an SSE data field). */
const TEXT_FORMATS = new Set(['zson', 'json', 'ndjson', 'zjson', 'csv', 'tsv', 'zeek']);

export interface EventHubOptions {
  /** Milliseconds between keep-alive comments (0: none). */
  keepAliveMs?: number;
  /** Bytes a client may fall behind by before it is disconnected. */
  maxBacklog?: number;
}

class Subscriber {
  /** Bytes handed to the socket that it has not yet flushed. */
  private backlog = 0;
  closed = false;
  unsubscribe?: () => void;

  constructor(
    readonly res: Response,
    readonly format: string,
    private maxBacklog: number,
    private onDrop: (s: Subscriber) => void,
  ) {
    res.on('drain', () => {
      this.backlog = 0;
    });
  }

  /** Queues a chunk; returns false when the client was dropped for falling behind. */
  send(chunk: string): boolean {
    if (this.closed) return false;
    const ok = this.res.write(chunk);
    if (!ok) {
      this.backlog += Buffer.byteLength(chunk);
      // writableLength counts what Node still holds for the socket.
      if (this.backlog > this.maxBacklog || this.res.writableLength > this.maxBacklog) {
        this.onDrop(this);
        return false;
      }
    }
    return true;
  }
}

export class EventHub {
  private subs = new Set<Subscriber>();
  /** Deliveries under way (close waits for them). */
  private chains = new Set<Promise<void>>();
  private encoded = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private keepAliveMs: number;
  private maxBacklog: number;

  constructor(
    private lake: Lake,
    private metrics: Metrics,
    private log: Logger,
    opts: EventHubOptions = {},
  ) {
    this.keepAliveMs = opts.keepAliveMs ?? 15000;
    this.maxBacklog = opts.maxBacklog ?? 1 << 20;
  }

  start(): void {
    if (this.keepAliveMs > 0) {
      this.timer = setInterval(() => {
        for (const s of this.subs) s.send(': keep-alive\n\n');
      }, this.keepAliveMs);
      this.timer.unref();
    }
  }

  get subscribers(): number {
    return this.subs.size;
  }

  /** The SSE chunk for an event in a format (shared by the clients asking for it). */
  private async encode(e: LakeEvent, id: string, format: string): Promise<string> {
    const key = `${id}\0${format}`;
    let chunk = this.encoded.get(key);
    if (chunk === undefined) {
      const { name, value } = eventValue(e);
      const text = (await encodeValues(format, [value])).toString('utf8').replace(/\n$/, '');
      const data = text
        .split('\n')
        .map((l) => `data: ${l}\n`)
        .join('');
      chunk = `id: ${id}\nevent: ${name}\n${data}\n\n`;
      if (this.encoded.size >= 1024) this.encoded.clear();
      this.encoded.set(key, chunk);
    }
    return chunk;
  }

  /** Serves GET /events for one client until it goes away. */
  attach(req: Request, res: Response, defaultFormat: string): void {
    const format = negotiate(req.headers.accept, defaultFormat, true);
    if (!TEXT_FORMATS.has(format)) {
      throw invalid(
        `events cannot be sent as ${format}: ask for a text format (ZSON, JSON, ZJSON)`,
      );
    }
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    const sub = new Subscriber(res, format, this.maxBacklog, (s) => this.drop(s));
    this.subs.add(sub);
    this.metrics.eventSubscribers.set(this.subs.size);
    // Each client follows the lake's event stream from where it is, or,
    // reconnecting with Last-Event-ID, from just after the last event it
    // saw (as far as the stream still holds). Encoding is asynchronous;
    // the chain keeps the client's events in order.
    const last = req.headers['last-event-id'];
    let chain: Promise<void> = Promise.resolve();
    sub.unsubscribe = this.lake.subscribe(
      (e, id) => {
        chain = chain
          .then(async () => {
            if (sub.closed) return;
            if (sub.send(await this.encode(e, id, format))) this.metrics.eventsSent.inc();
          })
          .catch((err) => {
            this.log.error('event delivery failed', { error: (err as Error).message });
          });
        this.chains.add(chain);
        const mine = chain;
        void mine.then(() => this.chains.delete(mine));
      },
      typeof last === 'string' && last !== '' ? last : undefined,
    );
    const done = () => {
      if (sub.closed) return;
      sub.closed = true;
      sub.unsubscribe?.();
      this.subs.delete(sub);
      this.metrics.eventSubscribers.set(this.subs.size);
    };
    res.on('close', done);
  }

  private drop(s: Subscriber): void {
    if (s.closed) return;
    s.closed = true;
    s.unsubscribe?.();
    this.subs.delete(s);
    this.metrics.eventSubscribers.set(this.subs.size);
    this.metrics.eventSubscribersDropped.inc();
    this.log.warn('event subscriber dropped: not reading', {});
    s.res.destroy();
  }

  /** Ends every stream and stops listening. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const s of [...this.subs]) s.unsubscribe?.();
    await Promise.all([...this.chains]);
    for (const s of [...this.subs]) {
      s.closed = true;
      s.res.end();
    }
    this.subs.clear();
    this.metrics.eventSubscribers.set(0);
  }
}
