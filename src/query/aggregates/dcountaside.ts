// A dcount column kept on another thread: DCountAside takes the place of
// a vector summarize's DCountColumn when a query will group many rows.
// It sends a worker thread (dcountworker.ts), which runs the same
// DCountColumn, the rows' groups and bytes (which the worker hashes) or
// the (group, code) pairs it is given, and asks for the estimates (or
// the partials, for a spill) once the groups are read out. Hashing and
// the sketches' upkeep, about a quarter of a cold high-cardinality
// group-by with dcount, then run on a second core while the query's
// thread groups the next rows (docs/benchmarks.md, "dcount's sketches on
// a second core").
//
// The answers are the worker's DCountColumn's, so they are the ones the
// column gives in-thread. Before reading the groups out, Summarize awaits
// prepare(), which asks for the estimates (or partials) and waits without
// blocking for the first answer, so a worker that dies fails the query at
// once; the estimates come 8192 groups to an answer, and result() takes
// each in turn, blocking only if it is not out yet (as it does, with a
// time limit, where no prepare() came first). At most IN_FLIGHT chunks
// of rows wait for the worker, so a worker that falls behind holds the
// query up rather than its memory: the summarize awaits room() (without
// blocking, failing at once if the worker stops) before each part. The
// worker is leased to one column at a time and goes back to the pool when
// the column is cleared (the answers it did not take are dropped at the
// next lease); a column with no worker free stays in-thread. Threads
// start on first use and never keep the process alive.

import { availableParallelism } from 'node:os';
import { MessageChannel, MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { spawnWorker } from '../../threads/spawn';
import { TypeContext } from '../../zed/context';
import { TypeBytes, TypeUint64 } from '../../zed/types';
import { Value } from '../../zed/value';
import { Scratch } from '../expr/scratch';
import { AggColumn } from './agg';
import { codeOf, DCountColumn } from './dcount';
import { rowsCodes } from './metrowasm';

/** Messages to a dcount worker, in order. */
export type AsideOp =
  | { op: 'init'; reply: MessagePort; shared: SharedArrayBuffer }
  | { op: 'codes'; size: number; n: number; pairs: Uint32Array }
  | {
      op: 'rows';
      size: number;
      grp: Int32Array;
      bytes: Uint8Array;
      starts: Int32Array;
      typeId: number;
    }
  | { op: 'partial'; size: number; g: number; bytes: Uint8Array }
  | { op: 'keep'; size: number; groups: Int32Array }
  | { op: 'reset' }
  | { op: 'estimates'; size: number; step: number }
  | { op: 'partials'; size: number };

/**
 * A worker's answers: to estimates, one per step groups, in order (est
 * holds groups from, from+1, ...); to partials, one (ends: each group's
 * end in bytes).
 */
export type AsideAnswer =
  { from: number; est: Float64Array } | { bytes: Uint8Array; ends: Int32Array } | { error: string };

/**
 * The dcount threads allowed from a setting: auto (one less than the
 * cores, at most 4: none on one core), off, or a number (0: off).
 */
export function parseAsideWorkers(s: string | undefined): number {
  if (s === undefined || s === '' || s === 'auto')
    return Math.max(0, Math.min(4, availableParallelism() - 1));
  if (s === 'off') return 0;
  if (/^\d+$/.test(s) && Number(s) <= 64) return Number(s);
  throw new Error(`must be auto, off or a number up to 64: ${s}`);
}

function defaultWorkers(): number {
  try {
    return parseAsideWorkers(process.env.ZLAKE_DCOUNT_WORKERS);
  } catch {
    return parseAsideWorkers('auto');
  }
}

/**
 * workers: threads at most (0: off; zlake serve -dcount.workers,
 * ZLAKE_DCOUNT_WORKERS). minRows: the rows a summarize will group (as its
 * first batch says) from which its dcounts go aside (a smaller query would
 * not repay the hand-offs). rows: rows a vector summarize groups before handing them
 * over. waitMs: how long an ask waits before failing the query. Tests
 * lower them.
 */
export const asideConfig = {
  workers: defaultWorkers(),
  minRows: 1 << 17,
  rows: 1 << 16,
  waitMs: 30_000,
};

/** Words of a worker's shared memory: answers given, chunks of rows or codes applied. */
const ANSWERS = 0;
const APPLIED = 1;

/** Atomics.waitAsync (Node 16 and later; not in this TypeScript's lib). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: unknown };
  }
).waitAsync;

/** Chunks sent that the worker may not have applied yet (the rest wait: memory stays bounded). */
const IN_FLIGHT = 4;

class AsideWorker {
  private readonly worker: Worker;
  private readonly reply: MessagePort;
  private readonly shared = new Int32Array(new SharedArrayBuffer(8));
  broken = false;
  /** Waiters for the worker's next "ready" (sent once an ask's first answer is out). */
  private readies: { resolve(): void; reject(e: Error): void }[] = [];
  /** Rejects when the thread stops (for waits that race it). */
  private readonly stopped: Promise<never>;
  private stop: (e: Error) => void = () => {};
  /** Waits in progress, which keep the process alive (the thread is unreferenced otherwise). */
  private holds = 0;

  constructor() {
    this.worker = spawnWorker(__dirname, 'dcountworker');
    const ch = new MessageChannel();
    this.reply = ch.port1;
    this.reply.unref();
    this.send({ op: 'init', reply: ch.port2, shared: this.shared.buffer as SharedArrayBuffer }, [
      ch.port2,
    ]);
    this.worker.on('message', () => this.readies.shift()?.resolve());
    this.stopped = new Promise<never>((_, reject) => (this.stop = reject));
    this.stopped.catch(() => {});
    const stop = () => {
      this.broken = true;
      const e = new Error('dcount: its worker thread stopped');
      for (const r of this.readies.splice(0)) r.reject(e);
      this.stop(e);
    };
    this.worker.on('error', stop);
    this.worker.on('exit', stop);
    // After the listeners: a 'message' listener refs the worker's port.
    this.worker.unref();
  }

  send(op: AsideOp, transfer: (ArrayBuffer | MessagePort)[] = []): void {
    this.worker.postMessage(op, transfer);
  }

  /** Chunks sent (codes or rows messages). */
  private sent = 0;

  /** Keeps the process alive while a wait is in progress. */
  private hold(): () => void {
    if (this.holds++ === 0) this.worker.ref();
    return () => {
      if (--this.holds === 0) this.worker.unref();
    };
  }

  /**
   * Waits without blocking until another chunk may be sent (fewer than
   * IN_FLIGHT are not applied), or fails when the thread stops.
   */
  async room(): Promise<void> {
    const release = this.hold();
    try {
      for (;;) {
        if (this.broken) throw new Error('dcount: its worker thread stopped');
        const applied = Atomics.load(this.shared, APPLIED);
        if (this.sent - applied < IN_FLIGHT) return;
        const w = waitAsync(this.shared, APPLIED, applied);
        if (w.async) await Promise.race([w.value, this.stopped]);
      }
    } finally {
      release();
    }
  }

  /** Sends a chunk, first waiting (blocking) while IN_FLIGHT chunks are not applied. */
  sendChunk(op: AsideOp, transfer: ArrayBuffer[]): void {
    if (this.sent - Atomics.load(this.shared, APPLIED) >= IN_FLIGHT)
      this.wait(APPLIED, this.sent - IN_FLIGHT);
    this.send(op, transfer);
    this.sent++;
  }

  /** Answers asked for and not yet taken. */
  private owed = 0;
  /** Answers taken (the worker counts those it gave in the shared word ANSWERS). */
  private taken = 0;

  /**
   * Sends a request for n answers (take() them in turn); the promise
   * settles once the first is out (or the worker stops), so a caller
   * that can wait without blocking does so.
   */
  ask(op: AsideOp, n: number): Promise<void> {
    if (this.broken) throw new Error('dcount: its worker thread stopped');
    const ready = new Promise<void>((resolve, reject) => this.readies.push({ resolve, reject }));
    const release = this.hold();
    // (A caller that takes at once does not wait for it.)
    ready.then(release, release);
    this.send(op);
    this.owed += n;
    return ready;
  }

  /** Blocks while shared word w is still `below` or less (the worker stopped or slow: an error). */
  private wait(w: number, below: number): void {
    const deadline = Date.now() + asideConfig.waitMs;
    while (Atomics.load(this.shared, w) <= below) {
      if (Atomics.wait(this.shared, w, Atomics.load(this.shared, w), 50) !== 'timed-out') continue;
      if (this.broken || Date.now() > deadline) {
        this.broken = true;
        void this.worker.terminate();
        throw new Error('dcount: its worker thread did not answer');
      }
    }
  }

  /** The next answer asked for, waiting (blocking) for it if it is not out yet. */
  take(): AsideAnswer {
    this.wait(ANSWERS, this.taken);
    const m = receiveMessageOnPort(this.reply);
    if (m === undefined) throw new Error('dcount: its worker thread answered nothing');
    this.taken++;
    this.owed--;
    return m.message as AsideAnswer;
  }

  /** Takes and drops the answers still owed (a column dropped or cleared before reading them). */
  drain(): void {
    while (this.owed > 0 && !this.broken) this.take();
  }

  /** Ends the thread (tests: a worker that dies). */
  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

const idle: AsideWorker[] = [];
let leased = 0;

/** A worker for one column, or null when every one allowed is in use. */
function lease(): AsideWorker | null {
  if (leased >= asideConfig.workers) return null;
  while (idle.length > 0) {
    const w = idle.pop()!;
    try {
      // The answers its last column did not take.
      w.drain();
    } catch {
      continue;
    }
    if (!w.broken) {
      leased++;
      return w;
    }
  }
  let w: AsideWorker;
  try {
    w = new AsideWorker();
  } catch {
    // No thread (none can start here): the column stays in-thread.
    return null;
  }
  leased++;
  return w;
}

function giveBack(w: AsideWorker): void {
  leased--;
  if (w.broken) return;
  w.send({ op: 'reset' });
  idle.push(w);
}

/** A column dropped without clear() (a query abandoned) gives its worker back. */
const dropped = new FinalizationRegistry<AsideWorker>(giveBack);

/** Columns sent aside, and columns kept in-thread because every worker was in use (for metrics). */
export const asideCounts = { aside: 0, busy: 0 };

/** Workers leased now (for tests). */
export function asideLeased(): number {
  return leased;
}

const out = new Scratch();

/** Groups per answer to estimates: the first comes soon, and the rest while groups are read out. */
const EST_STEP = 8192;

export class DCountAside implements AggColumn {
  size = 0;
  private w: AsideWorker | null;
  /** The column in-thread, once cleared (its worker given back). */
  private local: DCountColumn | null = null;
  /** (group, code) pairs not yet sent. */
  private pairs = new Uint32Array(2 * asideConfig.rows);
  private n = 0;
  /** The worker's estimates (those below estTo taken so far), until the column changes. */
  private est: Float64Array | null = null;
  private estTo = 0;
  private parts: { bytes: Buffer; ends: Int32Array } | null = null;

  private constructor(w: AsideWorker) {
    this.w = w;
    dropped.register(this, w, this);
  }

  /** A column aside, or null when no worker is free (counted in asideCounts). */
  static lease(): DCountAside | null {
    const w = lease();
    if (w === null) {
      if (asideConfig.workers > 0) asideCounts.busy++;
      return null;
    }
    asideCounts.aside++;
    return new DCountAside(w);
  }

  /** Drops the answers read so far (and those still coming): the state is changing. */
  private changed(): void {
    this.est = null;
    this.parts = null;
    this.partsAsked = false;
    this.w?.drain();
  }

  /** Drops the answers read so far, if any, before a change of state. */
  private changing(): void {
    if (this.est !== null || this.parts !== null) this.changed();
  }

  add(): void {
    this.size++;
    if (this.local !== null) this.local.add();
    else this.changing();
  }

  consume(g: number, v: Value): void {
    this.consumeCode(g, codeOf(v));
  }

  /** As DCountColumn.consumeCode. */
  consumeCode(g: number, k: number): void {
    if (this.local !== null) return this.local.consumeCode(g, k);
    this.changing();
    const p = this.pairs;
    const i = 2 * this.n++;
    p[i] = g;
    p[i + 1] = k;
    if (i + 2 === p.length) this.flush();
  }

  /** As DCountColumn.consumeCodes; sends the pairs. */
  consumeCodes(grp: Int32Array, from: number, to: number, codes: Uint32Array): void {
    if (this.local !== null) return this.local.consumeCodes(grp, from, to, codes);
    for (let k = from; k < to; k++) {
      const g = grp[k];
      if (g >= 0) this.consumeCode(g, codes[k - from]);
    }
    this.flush();
  }

  /**
   * Consumes rows from..to of a column whose data is buf and off (its
   * values' tags at off[i]), all of one type with the underlying ID
   * typeId (wasmCodes of it true), row k's group grp[k] (below 0: none).
   * The rows' bytes go to the worker, which hashes them (their codes cost
   * this thread nothing).
   */
  consumeRows(
    grp: Int32Array,
    from: number,
    to: number,
    buf: Uint8Array,
    off: Int32Array,
    typeId: number,
  ): void {
    if (this.local !== null) {
      const codes = new Uint32Array(to - from);
      rowsCodes(buf, off, from, to, typeId, codes);
      return this.local.consumeCodes(grp, from, to, codes);
    }
    this.changing();
    this.flush();
    const base = off[from];
    // A copy (a Buffer's slice() is a view, whose memory sending would take away).
    const bytes = new Uint8Array(off[to] - base);
    bytes.set(buf.subarray(base, off[to]));
    const starts = off.slice(from, to + 1);
    for (let i = 0; i < starts.length; i++) starts[i] -= base;
    const g = grp.slice(from, to);
    this.w!.sendChunk({ op: 'rows', size: this.size, grp: g, bytes, starts, typeId }, [
      g.buffer,
      bytes.buffer,
      starts.buffer,
    ]);
  }

  /** Sends the pairs not yet sent. */
  flush(): void {
    if (this.n === 0 || this.w === null) return;
    const pairs = this.pairs;
    // (Sending detaches pairs: its length is read first.)
    this.pairs = new Uint32Array(pairs.length);
    this.w.sendChunk({ op: 'codes', size: this.size, n: this.n, pairs }, [
      pairs.buffer as ArrayBuffer,
    ]);
    this.n = 0;
  }

  consumePartial(g: number, v: Value): void {
    if (this.local !== null) return this.local.consumePartial(g, v);
    this.flush();
    this.changed();
    const bytes = new Uint8Array(v.len < 0 ? 0 : v.len);
    bytes.set(v.buf.subarray(v.off, v.off + bytes.length));
    this.w!.send({ op: 'partial', size: this.size, g, bytes }, [bytes.buffer]);
  }

  /** Waits without blocking until the worker may be sent another chunk (see AsideWorker.room). */
  async room(): Promise<void> {
    if (this.local === null && this.w !== null) await this.w.room();
  }

  /**
   * Asks the worker for what the groups' read-out will need (the
   * estimates, or the partials for a spill) and waits without blocking
   * for the first answer (Summarize calls it before reading the groups
   * out; result() and resultPartial() ask themselves otherwise).
   */
  async prepare(partial: boolean): Promise<void> {
    if (this.local !== null || this.w === null) return;
    if (partial ? this.parts === null && !this.partsAsked : this.est === null)
      await this.request(partial);
  }

  /** Sends the pairs not yet sent and asks for the estimates or the partials. */
  private request(partial: boolean): Promise<void> {
    const w = this.w!;
    this.flush();
    this.changed();
    if (partial) {
      this.partsAsked = true;
      return w.ask({ op: 'partials', size: this.size }, 1);
    }
    this.est = new Float64Array(this.size);
    this.estTo = 0;
    return w.ask(
      { op: 'estimates', size: this.size, step: EST_STEP },
      Math.ceil(this.size / EST_STEP),
    );
  }

  /** Partials asked for and not yet taken. */
  private partsAsked = false;

  /**
   * Group g's estimate. Asking estimates every group, so callers read
   * every group's result with no change in between (Summarize does; a
   * summarize of sorted input, which reads some groups early, keeps its
   * dcounts in-thread).
   */
  result(g: number, zctx: TypeContext): Value {
    if (this.local !== null) return this.local.result(g, zctx);
    const w = this.w!;
    if (this.est === null) void this.request(false);
    const est = this.est!;
    while (g >= this.estTo) {
      const a = w.take();
      if ('error' in a) {
        this.changed();
        throw new Error(a.error);
      }
      const r = a as { from: number; est: Float64Array };
      est.set(r.est, r.from);
      this.estTo = r.from + r.est.length;
    }
    return out.uint(TypeUint64, est[g]);
  }

  resultPartial(g: number, zctx: TypeContext): Value {
    if (this.local !== null) return this.local.resultPartial(g, zctx);
    if (this.parts === null) {
      if (!this.partsAsked) void this.request(true);
      this.partsAsked = false;
      const a = this.w!.take();
      if ('error' in a) throw new Error(a.error);
      const { bytes, ends } = a as { bytes: Uint8Array; ends: Int32Array };
      this.parts = { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), ends };
    }
    const { bytes, ends } = this.parts;
    const start = g === 0 ? 0 : ends[g - 1];
    return out.copy(TypeBytes, bytes, start, ends[g] - start);
  }

  /** Ends the column's worker thread (tests: a worker that dies). */
  async killWorker(): Promise<void> {
    await this.w?.terminate();
  }

  /** Empties the column; its worker goes back to the pool and the column goes on in-thread. */
  clear(): void {
    if (this.w !== null) {
      // Answers not taken are dropped when the worker is next leased.
      dropped.unregister(this);
      giveBack(this.w);
      this.w = null;
    }
    this.local ??= new DCountColumn();
    this.local.clear();
    this.size = 0;
    this.n = 0;
    this.est = this.parts = null;
  }

  keep(groups: readonly number[]): void {
    if (this.local !== null) {
      this.local.keep(groups);
      this.size = this.local.size;
      return;
    }
    this.flush();
    this.changed();
    const kept = Int32Array.from(groups);
    this.w!.send({ op: 'keep', size: this.size, groups: kept }, [kept.buffer]);
    this.size = groups.length;
  }
}
