// The byte sink under a query's response. It holds the head of the output
// back before committing to a status: an error that shows up while the
// query runs (CSV output meeting a non-record, a runaway recursion, an
// object removed by vacuum) can then still be answered with a 4xx and the
// error body instead of a 200 and a truncated result. The response is
// committed (200, headers, the held bytes) once `limit` bytes are held,
// once the first held byte is `delayMs` old (so slow streams still flow),
// or when the output ends. After that, bytes go straight to the socket
// with back-pressure: a write resolves when the socket can take more.

import { Response } from 'express';
import { ByteSink } from '../formats/io';

export interface HeldOutputOptions {
  /** Bytes held before committing. */
  limit?: number;
  /** Milliseconds the first held byte may wait before committing. */
  delayMs?: number;
}

export class HeldOutput implements ByteSink {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private committed = false;
  private ended = false;
  /** Bytes sent to the client. */
  sent = 0;
  private limit: number;
  private delayMs: number;

  constructor(
    private res: Response,
    private contentType: string,
    opts: HeldOutputOptions = {},
  ) {
    this.limit = opts.limit ?? 1 << 20;
    this.delayMs = opts.delayMs ?? 1000;
  }

  /** True once the status has gone out (errors can no longer change it). */
  get isCommitted(): boolean {
    return this.committed;
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.ended) throw new Error('write after end');
    if (!this.committed) {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes >= this.limit) return this.commit();
      if (!this.timer && this.delayMs > 0) {
        this.timer = setTimeout(() => {
          this.timer = null;
          // Committing here races with nothing: writes after it stream.
          void this.commit().catch(() => undefined);
        }, this.delayMs);
      }
      return;
    }
    await this.send(chunk);
  }

  /** Sends the status, headers and held bytes. */
  async commit(): Promise<void> {
    if (this.committed) return;
    this.committed = true;
    this.clearTimer();
    const res = this.res;
    res.status(200);
    res.setHeader('Content-Type', this.contentType);
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    if (this.ended) {
      // The whole output is known: send it with a length.
      const body = Buffer.concat(held);
      res.setHeader('Content-Length', body.length);
      this.sent += body.length;
      res.end(body);
      return;
    }
    res.flushHeaders();
    // Written without waiting in between, so a write racing with this
    // commit (from the delay timer) cannot overtake the held bytes.
    let ok = true;
    for (const c of held) {
      this.sent += c.length;
      ok = res.write(c);
    }
    if (!ok) await this.drain();
  }

  private send(chunk: Buffer): Promise<void> {
    const res = this.res;
    if (res.destroyed) return Promise.reject(new Error('client disconnected'));
    this.sent += chunk.length;
    if (res.write(chunk)) return Promise.resolve();
    return this.drain();
  }

  private drain(): Promise<void> {
    const res = this.res;
    return new Promise((resolve, reject) => {
      const done = (err?: Error) => {
        res.off('drain', onDrain);
        res.off('close', onClose);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(new Error('client disconnected'));
      res.on('drain', onDrain);
      res.on('close', onClose);
    });
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (!this.committed) return this.commit();
    this.res.end();
  }

  /**
   * Abandons the output. Returns true when nothing was sent yet (the
   * caller can still answer with an error status).
   */
  discard(): boolean {
    this.clearTimer();
    this.ended = true;
    this.held = [];
    this.heldBytes = 0;
    return !this.committed;
  }

  private clearTimer(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }
}
