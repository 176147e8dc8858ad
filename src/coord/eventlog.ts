// An ordered stream of events held in memory: the latest RETAIN events are
// kept so a subscriber can resume after an ID it saw (SSE Last-Event-ID).
// IDs have Redis stream IDs' form, `<ms>-<n>`, and order the same way.
// Handlers run on a later turn of the event loop, in stream order, so a
// slow subscriber never holds up a publisher.

import { StreamEvent } from './coord';

export const RETAIN = 10000;

/** Orders two stream IDs (`<ms>-<n>`); malformed IDs sort first. */
export function compareEventIds(a: string, b: string): number {
  const [am, an] = splitId(a);
  const [bm, bn] = splitId(b);
  return am !== bm ? am - bm : an - bn;
}

function splitId(id: string): [number, number] {
  const dash = id.indexOf('-');
  const ms = Number(dash < 0 ? id : id.slice(0, dash));
  const n = dash < 0 ? 0 : Number(id.slice(dash + 1));
  return Number.isFinite(ms) && Number.isFinite(n) ? [ms, n] : [-1, -1];
}

export class EventLog {
  private kept: StreamEvent[] = [];
  private handlers = new Set<(e: StreamEvent) => void>();
  private lastMs = 0;
  private n = 0;

  /** Appends a message under a new ID. */
  append(message: string): StreamEvent {
    const now = Date.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.n = 0;
    } else this.n++;
    const e = { id: `${this.lastMs}-${this.n}`, message };
    this.deliver(e);
    return e;
  }

  /** Appends an event that already has an ID (from another replica's stream). */
  deliver(e: StreamEvent): void {
    this.kept.push(e);
    if (this.kept.length > RETAIN * 2) this.kept = this.kept.slice(-RETAIN);
    for (const h of this.handlers) setImmediate(() => runHandler(h, e));
  }

  /** The retained events after `after`, oldest first. */
  since(after: string): StreamEvent[] {
    let lo = 0;
    let hi = this.kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareEventIds(this.kept[mid].id, after) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return this.kept.slice(lo);
  }

  subscribe(handler: (e: StreamEvent) => void, after?: string): () => void {
    // Wrap so the same function may subscribe twice and unsubscribe once.
    const h = (e: StreamEvent) => handler(e);
    if (after !== undefined)
      for (const e of this.since(after)) setImmediate(() => runHandler(h, e));
    this.handlers.add(h);
    return () => {
      this.handlers.delete(h);
    };
  }

  close(): void {
    this.handlers.clear();
  }
}

function runHandler(h: (e: StreamEvent) => void, e: StreamEvent): void {
  try {
    h(e);
  } catch {
    // A subscriber's failure is its own business.
  }
}
