// The ZNG writer's compression worker: one thread per process that builds
// (LZ4-compresses) big values frames while the writer's thread goes on
// making the next ones, so a large response uses two cores. Measured in
// docs/benchmarks.md ("Compression on a second thread").
//
// A writer hands a frame over only while the worker has a free slot (one
// compressing, one waiting), and compresses it itself otherwise, so a
// worker that gets no CPU (a busy machine) never holds a query up by more
// than the frames it already took. The frames are the same bytes either
// way: the worker runs the writer's own frame builder and codec
// (valuesframe.ts).
//
// Frames cross in two slots of shared memory, each sent to the worker
// once: the values are copied in and the frame copied out, since the sink
// may hold it. Transferring each frame's ArrayBuffer instead cost about
// 0.7 ms a message on a server holding a large heap; letting the writer
// fill its values in a slot (no copy in) made its own loop slower
// (measured on the sort's 108 MB response), so the copy stays. The worker
// marks a slot done in a shared control word, so a writer whose thread
// never returns to the event loop (a query whose input is all in memory)
// still sees the slot free before its next frame; the worker's message
// does the same for a thread that waits.
//
// The thread starts on first use, is unreferenced while idle, so it keeps
// no process alive, and ends after IDLE_MS without work; a worker that
// dies fails its frames with an error (never a hang) and is replaced on
// the next frame. `zlake serve -zng.worker off` (ZLAKE_ZNG_WORKER=off)
// turns it off; by default it is on where the process has two cores.

import { availableParallelism } from 'node:os';
import { isMainThread, Worker } from 'node:worker_threads';
import { spawnWorker } from '../../threads/spawn';
import { MAX_HEADER } from './frame';
import { RESERVE } from './valuesframe';

export interface CompressRequest {
  id: number;
  /** The slot: its values at RESERVE (valuesframe.ts); the frame goes to its out or stays in values. */
  slot: number;
  vlen: number;
  /** The slot's memory, the first time the slot goes to this worker. */
  mem?: SlotMemory;
}

export interface SlotMemory {
  values: SharedArrayBuffer;
  out: SharedArrayBuffer;
  /** The control words (Ctl). */
  ctl: SharedArrayBuffer;
}

/** The worker's answer by message: only errors need one (the rest is in the control words). */
export type CompressReply = { id: number; error?: string };

/** A slot's control words: its state, then where the frame is once done. */
export const Ctl = { State: 0, InPlace: 1, Start: 2, Len: 3 } as const;
export const BUSY = 1;
export const DONE = 2;

/** Frames of fewer value bytes are built in-thread: the hand-off would cost more than it saves. */
export const MIN_OFFLOAD = 64 * 1024;
/** Value bytes a slot holds: a frame at the default threshold, and its last value. */
export const SLOT_BYTES = 1 << 20;
/** Frames on the worker at once (one compressing, one waiting), over all writers. */
const MAX_PENDING = 2;
/** An idle worker ends after this long (a new one starts in about 30 ms). */
const IDLE_MS = 10_000;

interface Slot {
  index: number;
  mem: SlotMemory;
  ctl: Int32Array;
  /** The worker that has the slot's memory. */
  sentTo: Worker | null;
}

interface Pending {
  slot: Slot;
  resolve(frame: Buffer): void;
  reject(e: unknown): void;
}

/** Big frames (MIN_OFFLOAD and more) by where they were compressed, for metrics. */
export interface CompressCounts {
  /** On the worker. */
  worker: number;
  /** On the writer's thread, the worker having two frames already. */
  thread: number;
}

export class CompressPool {
  readonly counts: CompressCounts = { worker: 0, thread: 0 };
  private worker: Worker | null = null;
  private pending = new Map<number, Pending>();
  private free: Slot[] = [];
  private slotCount = 0;
  private nextId = 1;
  private closed = false;
  private idle: NodeJS.Timeout | null = null;

  /** Whether a frame of vlen value bytes can go to the worker now. */
  takes(vlen: number): boolean {
    if (this.closed || vlen < MIN_OFFLOAD || RESERVE + vlen > SLOT_BYTES) return false;
    if (this.pending.size >= MAX_PENDING) this.reap();
    if (this.pending.size < MAX_PENDING) return true;
    this.counts.thread++;
    return false;
  }

  /**
   * The frame of values's vlen values at RESERVE (see buildValuesFrame),
   * built on the worker from a copy in a slot: values is the caller's
   * again at once. Call only when takes(vlen).
   */
  compress(values: Buffer, vlen: number): Promise<Buffer> {
    if (this.pending.size >= MAX_PENDING)
      return Promise.reject(new Error('internal error: no compression slot'));
    const slot = this.take();
    this.counts.worker++;
    values.copy(Buffer.from(slot.mem.values), RESERVE, RESERVE, RESERVE + vlen);
    const w = (this.worker ??= this.spawn());
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
    const id = this.nextId++;
    if (this.pending.size === 0) w.ref();
    Atomics.store(slot.ctl, Ctl.State, BUSY);
    const req: CompressRequest = { id, slot: slot.index, vlen };
    if (slot.sentTo !== w) {
      req.mem = slot.mem;
      slot.sentTo = w;
    }
    return new Promise<Buffer>((resolve, reject) => {
      this.pending.set(id, { slot, resolve, reject });
      w.postMessage(req);
    });
  }

  private take(): Slot {
    const free = this.free.pop();
    if (free !== undefined) return free;
    const mem: SlotMemory = {
      values: new SharedArrayBuffer(SLOT_BYTES),
      out: new SharedArrayBuffer(MAX_HEADER + SLOT_BYTES),
      ctl: new SharedArrayBuffer(16),
    };
    return { index: this.slotCount++, mem, ctl: new Int32Array(mem.ctl), sentTo: null };
  }

  /** Finishes the frames the worker has marked done. */
  private reap(): void {
    for (const [id, p] of this.pending)
      if (Atomics.load(p.slot.ctl, Ctl.State) === DONE) this.finish(id, p, null);
  }

  /**
   * Resolves a done frame with a copy of it (the sink may hold it past
   * the slot's next use) and frees its slot, or rejects it.
   */
  private finish(id: number, p: Pending, error: string | null): void {
    this.pending.delete(id);
    const w = this.worker;
    if (this.pending.size === 0 && w !== null) {
      w.unref();
      this.idle = setTimeout(() => this.retire(w), IDLE_MS).unref();
    }
    const slot = p.slot;
    if (error !== null) {
      this.free.push(slot);
      p.reject(new Error(`ZNG compression worker: ${error}`));
      return;
    }
    const ctl = slot.ctl;
    const len = ctl[Ctl.Len];
    const frame = Buffer.allocUnsafeSlow(len);
    Buffer.from(ctl[Ctl.InPlace] ? slot.mem.values : slot.mem.out, ctl[Ctl.Start], len).copy(frame);
    this.free.push(slot);
    p.resolve(frame);
  }

  /** Frames on the worker now (for tests). */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Ends the worker; its frames fail. */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    if (w === null) return;
    this.failAll(w, 'closed');
    await w.terminate();
  }

  /** Ends worker w if it is still the idle worker. */
  private retire(w: Worker): void {
    if (this.worker !== w || this.pending.size > 0) return;
    this.worker = null;
    this.idle = null;
    void w.terminate();
  }

  /** Fails the frames of worker w, which is ending. */
  private failAll(w: Worker, why: unknown): void {
    if (this.worker !== w) return;
    this.worker = null;
    const err = new Error(
      `ZNG compression worker failed: ${why instanceof Error ? why.message : String(why)}`,
    );
    // Their slots may still be written by the ending thread: dropped.
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  private spawn(): Worker {
    const w = spawnWorker(__dirname, 'compressworker');
    w.unref();
    w.on('message', (r: CompressReply) => {
      const p = this.pending.get(r.id);
      if (p) this.finish(r.id, p, r.error ?? null);
    });
    const fail = (e: unknown) => {
      this.failAll(w, e);
      void w.terminate();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(`exited with code ${code}`));
    return w;
  }
}

/** Whether frames go to the worker: auto (where the process has two cores or more), on, off. */
export type CompressWorkerMode = 'auto' | 'on' | 'off';

/** The mode from a flag's or the environment's text (empty: auto). */
export function parseCompressWorkerMode(s: string | undefined): CompressWorkerMode {
  switch (s ?? '') {
    case '':
    case 'auto':
      return 'auto';
    case 'on':
    case '1':
    case 'true':
      return 'on';
    case 'off':
    case '0':
    case 'false':
      return 'off';
    default:
      throw new Error(`the ZNG compression worker must be auto, on or off: ${s}`);
  }
}

let shared: CompressPool | null | undefined;

/** Sets the process's compression worker by mode (zlake serve's -zng.worker). */
export function setCompressWorkerMode(mode: CompressWorkerMode): void {
  const on = mode === 'on' || (mode === 'auto' && availableParallelism() > 1);
  if (shared !== undefined && on === (shared !== null)) return;
  if (shared) void shared.close();
  shared = isMainThread && on ? new CompressPool() : null;
}

/**
 * The process's compression worker, or null where it is off: by
 * ZLAKE_ZNG_WORKER (auto, on, off) unless set, off in a worker thread.
 */
export function compressPool(): CompressPool | null {
  if (shared === undefined) {
    let mode: CompressWorkerMode = 'auto';
    try {
      mode = parseCompressWorkerMode(process.env.ZLAKE_ZNG_WORKER);
    } catch {
      // zlake serve reports a bad value; elsewhere it means the default.
    }
    setCompressWorkerMode(mode);
  }
  return shared ?? null;
}
