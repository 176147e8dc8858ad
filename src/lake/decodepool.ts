// A pool of worker threads that decode columns of VNG copies, so a vector
// scan can use more than one core (off by default: see DEFAULT_WORKERS): the main thread fetches the bytes (so every
// object store works unchanged), packs each primitive column's stored
// segments into a buffer of their own and transfers it to a worker, which
// decompresses them, finds the values' offsets (and builds the column's
// dictionary when the query will group or count distinct by it) and
// transfers the typed arrays back. Nothing is copied across threads but
// the packed input.
//
// Workers start on first use and are unreferenced while idle, so a lake
// nobody closes does not keep its process alive; close() terminates them.
// A worker's decode error comes back as the VngError the in-thread decode
// throws; a worker that dies fails its tasks with an error (never a hang)
// and is replaced on the next task.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Segment } from '../formats/vng/metadata';
import { VngError } from '../formats/vng/reader';
import { memLength } from '../formats/vng/vectors';
import { spawnWorker } from '../threads/spawn';
import { ColumnData, Dict } from '../zed/vector';
import { parseCount } from './errors';

/** A column to decode: its packed stored segments (renumbered into bytes). */
export interface DecodeRequest {
  id: number;
  bytes: ArrayBuffer;
  segs: Segment[];
  n: number;
  dict: boolean;
}

export type DecodeReply =
  | {
      id: number;
      buf: Uint8Array;
      off: Int32Array;
      dict: { codes: Int32Array; rows: Int32Array; slots: Int32Array } | null;
    }
  | { id: number; error: string; vng: boolean };

/**
 * Below this many decoded bytes a column is decoded in-thread: handing it
 * to a worker (a message each way, the packing copy) costs more than the
 * decode it saves (measured: docs/architecture.md).
 */
export const DEFAULT_MIN_BYTES = 1 << 20;

/**
 * Workers by default: none. Measured on the 2-vCPU machine the benchmarks
 * run on, shared with other work, handing columns to workers made cold
 * queries 10-20% slower (docs/architecture.md), so a server uses them
 * only when told: `auto` is the cores the process may use.
 */
export const DEFAULT_WORKERS = 0;

/** The worker count from a flag's or the environment's text: a number, or `auto` (the cores). */
export function parseWorkers(s: string | undefined): number {
  if (s === undefined || s === '') return DEFAULT_WORKERS;
  if (s === 'auto') return availableParallelism();
  return parseCount(s, 'vector workers');
}

interface Pending {
  resolve(d: ColumnData): void;
  reject(e: unknown): void;
}

/** A dictionary costs about this many decodes of its column (measured on the bench's columns). */
const DICT_COST = 4;

class PoolWorker {
  readonly pending = new Map<number, Pending & { cost: number }>();
  /** The cost of its pending tasks (decoded bytes, dictionaries weighed by DICT_COST). */
  load = 0;
  readonly worker: Worker;
  dead = false;

  constructor(onExit: (w: PoolWorker) => void) {
    this.worker = spawnWorker(__dirname, 'decodeworker');
    this.worker.unref();
    this.worker.on('message', (r: DecodeReply) => this.reply(r));
    const fail = (e: unknown) => {
      if (this.dead) return;
      this.dead = true;
      const err = new Error(
        `column decode worker failed: ${e instanceof Error ? e.message : String(e)}`,
      );
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.load = 0;
      onExit(this);
      // After an error the thread is ending anyway; make sure of it.
      void this.worker.terminate();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(`exited with code ${code}`));
  }

  send(req: DecodeRequest, cost: number, p: Pending): void {
    if (this.pending.size === 0) this.worker.ref();
    this.pending.set(req.id, { ...p, cost });
    this.load += cost;
    this.worker.postMessage(req, [req.bytes]);
  }

  private reply(r: DecodeReply): void {
    const p = this.pending.get(r.id);
    if (!p) return;
    this.pending.delete(r.id);
    this.load -= p.cost;
    if (this.pending.size === 0) this.worker.unref();
    if ('error' in r) {
      p.reject(r.vng ? new VngError(r.error) : new Error(`column decode worker: ${r.error}`));
      return;
    }
    const buf = Buffer.from(r.buf.buffer, r.buf.byteOffset, r.buf.byteLength);
    const data = new ColumnData(buf, r.off);
    // A plain column: one type, so no type index.
    if (r.dict) data.dict = new Dict(r.dict.codes, r.dict.rows, r.dict.slots, data, null);
    p.resolve(data);
  }
}

export class DecodePool {
  private workers: PoolWorker[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    /** Worker threads (0 or 1: decode in-thread). */
    readonly size: number,
    /** Columns of fewer decoded bytes are decoded in-thread. */
    readonly minBytes = DEFAULT_MIN_BYTES,
  ) {}

  /** Whether columns are decoded by workers at all. */
  get enabled(): boolean {
    return this.size > 1 && !this.closed;
  }

  /** Whether a column of this many decoded bytes goes to a worker. */
  wants(memBytes: number): boolean {
    return this.enabled && memBytes >= this.minBytes;
  }

  /**
   * Decodes a primitive column of n values from its packed segments (see
   * packSegments), with its dictionary when dict is set. bytes is
   * transferred: the caller must not use it again.
   */
  decode(bytes: Buffer, segs: Segment[], n: number, dict: boolean): Promise<ColumnData> {
    if (this.closed) return Promise.reject(new Error('column decode pool is closed'));
    const w = this.pick();
    const mem = memLength(segs);
    const ab = bytes.buffer as ArrayBuffer;
    if (bytes.byteOffset !== 0 || bytes.byteLength !== ab.byteLength)
      throw new Error('internal error: packed column bytes must own their buffer');
    const req: DecodeRequest = { id: this.nextId++, bytes: ab, segs, n, dict };
    const cost = dict ? mem * DICT_COST : mem;
    return new Promise((resolve, reject) => w.send(req, cost, { resolve, reject }));
  }

  /**
   * The live worker with the least work pending, starting one while there
   * are fewer than size and all have work: a big column with a dictionary
   * then has a worker to itself while others share the other workers.
   */
  private pick(): PoolWorker {
    let best: PoolWorker | null = null;
    for (const w of this.workers) if (best === null || w.load < best.load) best = w;
    if (best !== null && (best.pending.size === 0 || this.workers.length >= this.size)) return best;
    const w = new PoolWorker((dead) => {
      this.workers = this.workers.filter((x) => x !== dead);
    });
    this.workers.push(w);
    return w;
  }

  /** Live worker threads (for tests and metrics). */
  get threads(): number {
    return this.workers.length;
  }

  /** Terminates the workers; their pending tasks fail. */
  async close(): Promise<void> {
    this.closed = true;
    const ws = this.workers;
    this.workers = [];
    await Promise.all(ws.map((w) => w.worker.terminate()));
  }
}
