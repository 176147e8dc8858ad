// Spilling values to temporary ZNG files, for operators whose state
// outgrows QueryContext.memoryLimit (sort, summarize, fuse, shape).
//
// A SpillDir is a private temporary directory (under QueryContext.tmpDir or
// the OS temp dir) that holds an operator's spill files and is removed as a
// whole when the operator finishes or is closed. Files are uncompressed
// ZNG (compression costs more than it saves on local disk); values read
// back are decoded into the query's type context, so their types are the
// very types they had when written.
//
// RunMerger merges sorted runs (spilled files, and runs held in memory) by
// a Comparator, stable by run order: the external merge sort.

import { mkdtemp, open, rm, FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteSink, ByteSource } from '../../../formats/io';
import { ZngReader } from '../../../formats/zng/reader';
import { ZngWriter } from '../../../formats/zng/writer';
import { TypeContext } from '../../../zed/context';
import { Value } from '../../../zed/value';
import { QueryContext } from '../context';
import { BATCH_SIZE, Operator } from '../operator';
import { Comparator, KeyCopy } from './sort-keys';

/** Prefix of spill directory names (tests look for leftovers by it). */
export const SPILL_PREFIX = 'zlake-spill-';

/**
 * Spilled runs merged at once: sort and summarize merge runs FAN_IN at a
 * time into one as they accumulate (SpilledRuns), so that few runs are
 * left to merge at the end.
 */
export const FAN_IN = 64;

const READ_CHUNK = 1024 * 1024;
/** Frame size of spill files: well under READ_CHUNK, so few frames span two reads. */
const SPILL_FRAME = 128 * 1024;

/** A temporary directory of spill files, removed by remove(). */
export class SpillDir {
  private n = 0;
  private removed = false;
  private readonly files = new Set<SpillFile>();

  private constructor(
    readonly path: string,
    private readonly zctx: TypeContext,
  ) {}

  static async create(ctx: QueryContext): Promise<SpillDir> {
    const path = await mkdtemp(join(ctx.tmpDir ?? tmpdir(), SPILL_PREFIX));
    return new SpillDir(path, ctx.zctx);
  }

  /** A new, empty spill file in this directory, open for writing. */
  async newFile(): Promise<SpillFile> {
    if (this.removed) throw new Error('spill directory already removed');
    const path = join(this.path, String(this.n++) + '.zng');
    const f = new SpillFile(path, this.zctx, await open(path, 'w+'));
    this.files.add(f);
    return f;
  }

  /** A new spill file holding vals, rewound for reading (ctx: cancellation). */
  async writeRun(ctx: QueryContext, vals: Value[]): Promise<SpillFile> {
    const f = await this.newFile();
    for (let i = 0; i < vals.length; i += BATCH_SIZE) {
      ctx.checkCancelled();
      await f.write(vals.slice(i, i + BATCH_SIZE));
    }
    await f.rewind();
    return f;
  }

  /** Closes every file and deletes the directory. Safe to call twice. */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    for (const f of this.files) await f.close();
    this.files.clear();
    await rm(this.path, { recursive: true, force: true });
  }
}

/** A source of value batches (a spilled run, or values in memory). */
export interface BatchSource {
  read(): Promise<Value[] | null>;
  /** Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * One spill file: write values, call rewind(), then read them back in
 * order (read() is a BatchSource). A rewound file holds a descriptor only
 * while a read of it is in flight: a merge may take thousands of runs,
 * each waiting for its keys' turn.
 */
export class SpillFile implements BatchSource {
  private writer: ZngWriter | null;
  private reader: ZngReader | null = null;
  /** The handle it is written through, until rewind(). */
  private fh: FileHandle | null;
  private pos = 0;
  private closed = false;
  /** Bytes written. */
  size = 0;

  constructor(
    readonly path: string,
    private readonly zctx: TypeContext,
    fh: FileHandle,
  ) {
    this.fh = fh;
    const sink: ByteSink = {
      write: async (chunk) => {
        await fh.write(chunk);
        this.size += chunk.length;
      },
      end: async () => {},
    };
    this.writer = new ZngWriter(sink, { compress: false, frameThreshold: SPILL_FRAME });
  }

  async write(vals: Value[]): Promise<void> {
    if (!this.writer) throw new Error('spill file: write after rewind');
    await this.writer.write(vals);
  }

  /** Flushes what was written and starts reading from the beginning. */
  async rewind(): Promise<void> {
    if (this.writer) {
      await this.writer.close();
      this.writer = null;
    }
    const fh = this.fh;
    this.fh = null;
    await fh?.close();
    this.pos = 0;
    const src: ByteSource = {
      read: async () => {
        if (this.closed || this.pos >= this.size) return null;
        const rd = await open(this.path, 'r');
        try {
          // A fresh buffer per read: values point into it after we return.
          const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, this.size - this.pos));
          const { bytesRead } = await rd.read(buf, 0, buf.length, this.pos);
          if (bytesRead === 0) return null;
          this.pos += bytesRead;
          return buf.subarray(0, bytesRead);
        } finally {
          await rd.close();
        }
      },
    };
    this.reader = new ZngReader(src, { ctx: this.zctx });
  }

  async read(): Promise<Value[] | null> {
    if (!this.reader) throw new Error('spill file: read before rewind');
    return this.reader.read();
  }

  /** Safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.reader?.close();
    const fh = this.fh;
    this.fh = null;
    await fh?.close();
  }
}

/**
 * Merges spilled runs, each sorted by cmp, into one new run and deletes
 * them. `next` takes the merged values from the merger a batch at a time
 * (an empty batch at the end), so callers may combine equal keys as they
 * go. Callers put the new run in place of the runs it merged, so ties
 * keep input order.
 */
export async function mergeRuns(
  ctx: QueryContext,
  spill: SpillDir,
  runs: BatchSource[],
  cmp: Comparator,
  next: (merger: RunMerger) => Promise<Value[]>,
): Promise<SpillFile> {
  const merger = new RunMerger(runs, cmp);
  try {
    const f = await spill.newFile();
    try {
      for (;;) {
        ctx.checkCancelled();
        const batch = await next(merger);
        if (batch.length === 0) break;
        await f.write(batch);
      }
      await f.rewind();
    } catch (e) {
      await f.close();
      throw e;
    }
    return f;
  } finally {
    await merger.close();
    for (const r of runs) if (r instanceof SpillFile) await rm(r.path, { force: true });
  }
}

/**
 * The spilled runs of one operator, in spill order, merged as they
 * accumulate like a counter in base FAN_IN: FAN_IN runs of one level at
 * the end become one run of the next level in their place. Each value is
 * then rewritten about log_FAN_IN(runs) times; merging into the first run
 * each time, as this did before, rewrote the growing first run at every
 * merge (quadratic: `summarize ... with -limit 100` over 313k groups took
 * 57 s). Only neighbouring runs merge, so ties keep input order.
 *
 * Small runs may be held in memory rather than written (hold()), up to
 * holdBytes in all: the held runs are the last ones, and are written out
 * as one merged run when they pass that or number FAN_IN, or before a run
 * in a file is added after them. A run per few thousand values (a
 * summarize's small -limit) otherwise paid a file's open, write, close,
 * reopen, read and unlink each, most of its time. `memory` counts the
 * held runs' bytes until they are closed, also after take() handed them
 * over.
 */
export class SpilledRuns {
  /** The runs in spill order, each with its level and, held in memory, its bytes (0 for a file). */
  private runs: { run: BatchSource; level: number; bytes: number }[] = [];
  /** Bytes of the held runs in the list (the last ones). */
  private held = 0;
  private closed = false;
  /** Merges done (for stats and tests). */
  merges = 0;

  constructor(
    /** Merges runs (neighbours, in order) into one new spill file. */
    private readonly merge: (runs: BatchSource[]) => Promise<BatchSource>,
    /** Bytes of runs held in memory at most. */
    readonly holdBytes = 0,
    readonly memory = new HeldMemory(),
  ) {}

  get length(): number {
    return this.runs.length;
  }

  /** The runs' levels, first to last (for tests). */
  get levelList(): readonly number[] {
    return this.runs.map((r) => r.level);
  }

  /** Adds a run spilled to a file after all the others. */
  async push(run: BatchSource): Promise<void> {
    await this.writeHeld();
    this.append(run, 0);
    await this.cascade();
  }

  /** Whether a run of this many bytes (batchBytes) may be held: else write it and push() it. */
  canHold(bytes: number): boolean {
    return bytes <= this.holdBytes;
  }

  /**
   * Adds a run of sorted values (of batchBytes bytes, canHold) after all
   * the others, held in memory until the held runs pass holdBytes.
   */
  async hold(vals: Value[], bytes: number): Promise<void> {
    this.append(new MemorySource(vals, this.memory, bytes), bytes);
    if (this.held > this.holdBytes) await this.writeHeld();
    await this.cascade();
  }

  /**
   * Merges the last runs until at most max are left, and hands them over
   * in order (the caller then owns them).
   */
  async take(max: number): Promise<BatchSource[]> {
    while (this.runs.length > max && !this.closed) {
      const k = Math.min(FAN_IN, this.runs.length - max + 1);
      await this.mergeTail(k, this.runs[this.runs.length - k].level + 1);
    }
    return this.clear();
  }

  private append(run: BatchSource, bytes: number): void {
    this.runs.push({ run, level: 0, bytes });
    this.held += bytes;
  }

  /** Empties the list, returning its runs. */
  private clear(): BatchSource[] {
    const runs = this.runs.map((r) => r.run);
    this.runs = [];
    this.held = 0;
    return runs;
  }

  /** Writes the held runs at the end of the list out as one run. */
  private async writeHeld(): Promise<void> {
    const n = this.runs.length;
    let k = 0;
    while (k < n && this.runs[n - 1 - k].bytes > 0) k++;
    if (k > 0) await this.mergeTail(k, 1);
  }

  /**
   * Levels never rise along the list, so the last FAN_IN runs are of one
   * level when the first of them is of the last one's.
   */
  private async cascade(): Promise<void> {
    for (;;) {
      const n = this.runs.length;
      if (this.closed || n < FAN_IN) return;
      const level = this.runs[n - 1].level;
      if (this.runs[n - FAN_IN].level !== level) return;
      await this.mergeTail(FAN_IN, level + 1);
    }
  }

  /** Merges the last k runs into one of the given level (at most the level of the run before). */
  private async mergeTail(k: number, level: number): Promise<void> {
    const tail = this.runs.slice(this.runs.length - k);
    const merged = await this.merge(tail.map((r) => r.run));
    if (this.closed) {
      // Closed while it merged (a cancelled query).
      await merged.close();
      return;
    }
    for (const r of tail) this.held -= r.bytes;
    this.runs.length -= k;
    const before = this.runs[this.runs.length - 1];
    this.runs.push({
      run: merged,
      level: before ? Math.min(level, before.level) : level,
      bytes: 0,
    });
    this.merges++;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const r of this.clear()) await r.close();
  }
}

/** Bytes charged per buffered value beyond its body (the Value object and its slot). */
export const VALUE_OVERHEAD = 64;

/** Bytes charged for holding the values of a batch. */
export function batchBytes(batch: Value[]): number {
  let n = batch.length * VALUE_OVERHEAD;
  for (let i = 0; i < batch.length; i++) {
    const len = batch[i].len;
    if (len > 0) n += len;
  }
  return n;
}

/**
 * An operator that reads its whole input before emitting anything (fuse,
 * shape): the input is held in memory up to QueryContext.memoryLimit
 * bytes, past that in a spill file, and replayed through transform().
 */
export abstract class BufferingOperator implements Operator {
  private started = false;
  private closed = false;
  /**
   * The input's batches as they came (a batch stays valid after later
   * pulls): held as they are, not pushed value by value into one array,
   * which cost a quarter of `fuse` over 1M values.
   */
  private batches: Value[][] = [];
  private pos = 0;
  private bytes = 0;
  private spill: SpillDir | null = null;
  private file: SpillFile | null = null;

  constructor(
    protected readonly ctx: QueryContext,
    private readonly parent: Operator,
  ) {}

  /** Sees each input batch as it is read. */
  protected abstract observe(batch: Value[]): void;
  /** Called once the whole input has been seen. */
  protected abstract prepare(): void;
  /** The output for a replayed batch. */
  protected abstract transform(batch: Value[]): Value[];

  /** True when the input was spilled to disk. */
  get spilled(): boolean {
    return this.spill !== null;
  }

  async pull(): Promise<Value[] | null> {
    if (this.closed) return null;
    try {
      if (!this.started) {
        this.started = true;
        await this.consume();
        this.prepare();
      }
      this.ctx.checkCancelled();
      let batch: Value[] | null;
      if (this.file) {
        batch = await this.file.read();
      } else {
        batch = this.pos < this.batches.length ? this.batches[this.pos++] : null;
      }
      if (batch === null) {
        await this.finish();
        return null;
      }
      return this.transform(batch);
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  private async consume(): Promise<void> {
    for (;;) {
      this.ctx.checkCancelled();
      const batch = await this.parent.pull();
      if (batch === null) break;
      this.observe(batch);
      if (this.file) {
        await this.file.write(batch);
        continue;
      }
      this.batches.push(batch);
      this.bytes += batchBytes(batch);
      if (this.bytes >= this.ctx.memoryLimit) {
        this.spill = await SpillDir.create(this.ctx);
        this.file = await this.spill.newFile();
        for (const b of this.batches) await this.file.write(b);
        this.batches = [];
      }
    }
    if (this.file) await this.file.rewind();
  }

  private async finish(): Promise<void> {
    this.batches = [];
    this.file = null;
    if (this.spill) {
      await this.spill.remove();
      this.spill = null;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.finish();
    await this.parent.close();
  }
}

/** Bytes of one operator's runs held in memory, wherever they are (SpilledRuns, a merge). */
export class HeldMemory {
  bytes = 0;
}

/** Values in memory as a BatchSource (a sort's last, unspilled run, or a held run). */
export class MemorySource implements BatchSource {
  private done = false;
  private closed = false;

  /** With memory: bytes (batchBytes of vals) count in it until the source is closed. */
  constructor(
    private vals: Value[],
    private readonly memory: HeldMemory | null = null,
    private readonly bytes = 0,
  ) {
    if (memory !== null) memory.bytes += bytes;
  }

  async read(): Promise<Value[] | null> {
    if (this.done || this.vals.length === 0) return null;
    this.done = true;
    const v = this.vals;
    this.vals = [];
    return v;
  }

  /** Safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.vals = [];
    if (this.memory !== null) this.memory.bytes -= this.bytes;
  }
}

class Cursor {
  batch: Value[] = [];
  pos = 0;
  readonly keys: KeyCopy[];

  constructor(
    readonly src: BatchSource,
    readonly ordinal: number,
    nkeys: number,
  ) {
    this.keys = Array.from({ length: nkeys }, () => new KeyCopy());
  }

  get head(): Value {
    return this.batch[this.pos];
  }
}

/**
 * Merges sources that are each sorted by cmp into one sorted sequence.
 * Values equal under cmp come out in source order.
 */
export class RunMerger {
  private heap: Cursor[] = [];
  private started = false;
  /** Sources closed already (each is closed once read to its end). */
  private readonly ended = new Set<BatchSource>();

  constructor(
    private readonly sources: BatchSource[],
    private readonly cmp: Comparator,
  ) {}

  private less(a: Cursor, b: Cursor): boolean {
    const c = this.cmp.compareKeys(a.keys, b.keys);
    return c < 0 || (c === 0 && a.ordinal < b.ordinal);
  }

  /** Loads the cursor's next batch if needed; false at its end. */
  private async fill(c: Cursor): Promise<boolean> {
    while (c.pos >= c.batch.length) {
      const b = await c.src.read();
      if (b === null) return false;
      c.batch = b;
      c.pos = 0;
    }
    this.cmp.keysOf(c.head, c.keys);
    return true;
  }

  private async start(): Promise<void> {
    this.started = true;
    const nkeys = this.cmp.exprs.length;
    for (let i = 0; i < this.sources.length; i++) {
      const c = new Cursor(this.sources[i], i, nkeys);
      if (await this.fill(c)) this.push(c);
      else await this.end(c.src);
    }
  }

  /** Adds a source (a run spilled after merging began). */
  async add(src: BatchSource): Promise<void> {
    if (!this.started) {
      this.sources.push(src);
      return;
    }
    const c = new Cursor(src, this.sources.length, this.cmp.exprs.length);
    this.sources.push(src);
    if (await this.fill(c)) this.push(c);
    else await this.end(src);
  }

  /** Closes a source read to its end (once). */
  private async end(src: BatchSource): Promise<void> {
    if (this.ended.has(src)) return;
    this.ended.add(src);
    await src.close();
  }

  /** The next value without consuming it, or null at the end. */
  async peek(): Promise<Value | null> {
    if (!this.started) await this.start();
    return this.head();
  }

  /** The next value (after the first peek()), or null at the end. */
  head(): Value | null {
    return this.heap.length > 0 ? this.heap[0].head : null;
  }

  /**
   * Consumes the next value. Returns a promise only when a source must be
   * read (so callers await rarely).
   */
  advance(): Promise<void> | null {
    const heap = this.heap;
    if (heap.length === 0) return null;
    const c = heap[0];
    c.pos++;
    if (c.pos < c.batch.length) {
      this.cmp.keysOf(c.head, c.keys);
      this.down(0);
      return null;
    }
    return this.fill(c).then(async (more) => {
      if (more) this.down(0);
      else {
        const last = heap.pop()!;
        if (heap.length > 0) {
          heap[0] = last;
          this.down(0);
        }
        // Its memory goes now, not at the end of the merge: a merge that
        // takes runs as they spill may see thousands.
        await this.end(c.src);
      }
    });
  }

  /** Up to max values in order; an empty array at the end. */
  async next(max: number): Promise<Value[]> {
    if (!this.started) await this.start();
    const out: Value[] = [];
    const heap = this.heap;
    while (out.length < max && heap.length > 0) {
      out.push(heap[0].head);
      const p = this.advance();
      if (p) await p;
    }
    return out;
  }

  async close(): Promise<void> {
    for (const s of this.sources) await this.end(s);
    this.heap = [];
  }

  private push(c: Cursor): void {
    const heap = this.heap;
    heap.push(c);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      let m = l;
      if (l + 1 < n && this.less(heap[l + 1], heap[l])) m = l + 1;
      if (!this.less(heap[m], heap[i])) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  }
}
