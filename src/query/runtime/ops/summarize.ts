// The summarize operator (group-by): `aggs [by keys] [with -limit N]`.
//
// Each input value is assigned to the group of its key values (a key that
// evaluates to error("quiet") drops the value) and fed to that group's
// aggregate functions. At the end of input each group becomes a record of
// its keys then its aggregates, at the field paths given (nested paths
// build nested records; their types come from the values).
//
// Output order. The reference emits groups in the iteration order of a Go
// map (random from run to run; its docs call the order undefined). zlake
// emits them in order of first appearance, deterministically. When the
// groups outgrow memory (more than `limit` groups, default 1,000,000, or
// past QueryContext.memoryLimit bytes) the table's partial results are
// sorted by key and spilled as a run (held in memory while the runs are
// small, else in a temporary file: SpilledRuns), and at the end the runs
// are merged: then, as in the reference, output is sorted by the keys.
//
// With inputSortDir (set by the optimizer when the input is sorted by the
// first key), groups whose first key is below the largest seen so far are
// complete: they are emitted after each input batch, sorted by that key.
// That holds only where the pool's merge gives valueCompare's order, which
// needs keys of one type that compareValues orders as the writer's sort
// does: not int8 (sorted by value, compared by bytes), not floats (a NaN
// equals every number), not two types (numbers compare with numbers by
// value, with other types by type name: no total order). Other keys would
// come back after their group was emitted, split it (as they do in the
// reference). So early output waits for inputOrderCheck (the lake's
// metadata says the scan's keys are of one such type) and stops at the
// first key of another type (orderedKeyType); the groups then come out at
// the end, in the sort's order by key (docs/compatibility.md).

import { TypeContext } from '../../../zed/context';
import { hashBytes } from '../../../zed/hash';
import { fieldAt } from '../../../zed/record';
import { bytesEqual } from '../../../zed/primitive';
import { isNaNKey } from '../../../zed/compare';
import { Field, ID, innerType, isFloat, Type, TypeNull, TypeRecord } from '../../../zed/types';
import { EMPTY, Value } from '../../../zed/value';
import { Builder, putUvarint, readUvarint, uv } from '../../../zed/zcode';
import { AggColumn, Aggregator } from '../../aggregates';
import { isError, isQuiet } from '../../expr/errors';
import { Expr } from '../../expr/expr';
import { fieldPath, This } from '../../expr/path';
import { appendTagged, RecordBuilder } from '../../expr/recordbuilder';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { BATCH_SIZE, Operator } from '../operator';
import { Comparator, sortValues } from './sort-keys';
import {
  batchBytes,
  BatchSource,
  FAN_IN,
  MemorySource,
  mergeRuns,
  RunMerger,
  SpillDir,
  SpilledRuns,
  SpillFile,
} from './spill';
import { GroupTable, TypeVectors } from './summarize-table';

/** `lhs:=expr` of a group-by key. */
export interface SummarizeKey {
  lhs: string[];
  expr: Expr;
}

/** `lhs:=agg(...)` of an aggregation. */
export interface SummarizeAgg {
  lhs: string[];
  agg: Aggregator;
}

export interface SummarizeOptions {
  keys: SummarizeKey[];
  aggs: SummarizeAgg[];
  /** Groups held in memory before spilling (`with -limit N`); 0 or absent: 1,000,000. */
  limit?: number;
  /** The input is sorted by the first key: 1 ascending, -1 descending (0: unknown). */
  inputSortDir?: 0 | 1 | -1;
  /**
   * Sorted input: resolves to whether the source's keys have an order the
   * merge keeps (asked before the first group is emitted early; absent:
   * taken as true).
   */
  inputOrderCheck?: () => Promise<boolean>;
}

/**
 * Whether keys of type t (all of one type) are merged into valueCompare's
 * order: not int8s (the writer sorts them by value, compareValues orders
 * them by bytes) nor floats, alone or in arrays and sets (a NaN equals
 * every number, so there is no order to keep).
 */
export function orderedKeyType(t: Type): boolean {
  const id = t.under.id;
  if (id === ID.Int8 || isFloat(id)) return false;
  const inner = innerType(t);
  return inner === undefined || orderedKeyType(inner);
}

/** The reference's default group limit. */
export const DEFAULT_GROUP_LIMIT = 1_000_000;
/** Bytes of spilled runs held in memory at most (SpilledRuns.hold). */
const HELD_RUN_BYTES = 64 * 1024 * 1024;

/** Bytes charged per group beyond its key bytes, and per aggregate function. */
const GROUP_OVERHEAD = 64;
const AGG_OVERHEAD = 64;

/** Groups from which the one-key path goes a batch at a time, reading the table and aggregate state ahead (see GroupTable.touch). */
export const WARM_GROUPS = 8192;

export { FAN_IN };

export class Summarize implements Operator {
  protected readonly zctx: TypeContext;
  protected readonly keyExprs: Expr[];
  protected readonly aggs: Aggregator[];
  protected readonly nk: number;
  protected readonly na: number;
  private readonly limit: number;
  private readonly dir: 0 | 1 | -1;
  private readonly rb: RecordBuilder;
  private readonly arena = new ValueArena();

  protected readonly table = new GroupTable();
  protected readonly tvs = new TypeVectors();
  /** The aggregates' state: a column per aggregate, a row per group. */
  protected readonly cols: AggColumn[];
  /** One-group columns for merging spilled partials. */
  private readonly mergeCols: AggColumn[];
  /**
   * Largest first key when the group was created (sorted input only); null
   * for a group whose first key is an error. A filter passes its errors on,
   * and their key, error("missing"), may come again after any other key,
   * so such a group is never complete before the end: it stays in the
   * table (spills leave it there too) and is output after every other
   * group, whole, so the output does not depend on where batches ended.
   */
  private groupvals: (Value | null)[] = [];
  /** Groups in the table whose first key is an error (sorted input). */
  private errorGroups = 0;
  private maxTableKey: Value | null = null;
  private maxSpillKey: Value | null = null;
  protected readonly valueCompare: Comparator | null = null;
  private readonly keyCompare: Comparator | null = null;
  /**
   * Sorted input: whether groups may still be emitted early. Cleared for
   * good by inputOrderCheck, by a first key of a type other than the
   * first one's or not orderedKeyType, or by a key below the largest one
   * after groups were emitted (keys out of order).
   */
  private ordered = true;
  /** Sorted input: the first non-null first key's type. */
  private keyType: Type | null = null;
  private emitted = false;
  private orderCheck: (() => Promise<boolean>) | null;

  protected keyBuf: Buffer = Buffer.allocUnsafe(256);
  /** Per value of a batch (one key): key offset in keyBuf, length (-2: skipped), type vector, hash, group. */
  private kOff = new Int32Array(0);
  private kLen = new Int32Array(0);
  private kTv = new Int32Array(0);
  private kHash = new Int32Array(0);
  private grp = new Int32Array(0);
  /** Folds the reads of the cache-warming passes (see GroupTable.touch). */
  private sink = 0;
  protected readonly keyTypes: Type[];
  private readonly outTypes: Type[];
  private lastOutTypes: Type[] = [];
  private lastOutType: TypeRecord | null = null;
  /** Whether every output field is at the top level (flatResults). */
  private readonly flat: boolean;
  /** flatResults' builder, its last record's field types and record type. */
  private flatBuilder: Builder | null = null;
  private readonly flatTypes: Type[];
  private flatType: TypeRecord | null = null;

  private spill: SpillDir | null = null;
  /** Spilled runs; small ones stay in memory up to a quarter of the memory limit (at most HELD_RUN_BYTES). */
  private readonly runs: SpilledRuns;
  private merger: RunMerger | null = null;
  private readonly partialTypes = new Map<number, TypeRecord>();
  private readonly partialTvs = new TypeVectors();
  private readonly partialKeys: Expr[];
  private readonly partialCompare: Comparator;

  private eof = false;
  private closed = false;
  private pending: Value[][] = [];
  private outGroup = 0;
  /** Runs spilled (for stats and tests). */
  spilledRuns = 0;
  private readonly field = new Value(TypeNull, EMPTY, 0, -1);

  constructor(
    protected readonly ctx: QueryContext,
    private readonly parent: Operator,
    opts: SummarizeOptions,
  ) {
    this.zctx = ctx.zctx;
    this.keyExprs = opts.keys.map((k) => k.expr);
    this.aggs = opts.aggs.map((a) => a.agg);
    this.nk = opts.keys.length;
    this.cols = this.aggs.map((a) => a.newColumn());
    this.mergeCols = this.aggs.map((a) => a.newColumn());
    this.na = opts.aggs.length;
    this.limit = opts.limit && opts.limit > 0 ? opts.limit : DEFAULT_GROUP_LIMIT;
    this.runs = new SpilledRuns(
      (runs) => this.mergePartials(runs),
      Math.min(HELD_RUN_BYTES, ctx.memoryLimit / 4),
    );
    this.dir = opts.inputSortDir ?? 0;
    this.orderCheck = opts.inputOrderCheck ?? null;
    this.rb = new RecordBuilder(this.zctx, [
      ...opts.keys.map((k) => k.lhs),
      ...opts.aggs.map((a) => a.lhs),
    ]);
    this.keyTypes = new Array<Type>(this.nk);
    this.outTypes = new Array<Type>(this.nk + this.na);
    this.flatTypes = new Array<Type>(this.nk + this.na);
    this.flat = this.rb.paths.every((p) => p.length === 1);
    // Spilled partials are flat records {k0,...,a0,...}.
    this.partialKeys = opts.keys.map((_, i) => fieldPath(this.zctx, ['k' + i]));
    // NaN keys last among the numbers they equal: a place in the runs'
    // order, so that their partials meet in the merge (spillTable).
    this.partialCompare = new Comparator(this.partialKeys, this.dir < 0, true, true, true);
    if (this.dir !== 0 && this.nk > 0) {
      this.valueCompare = new Comparator([new This()], this.dir < 0, this.dir > 0, false);
      this.keyCompare = new Comparator(
        [fieldPath(this.zctx, opts.keys[0].lhs)],
        this.dir < 0,
        true,
      );
    }
  }

  async pull(): Promise<Value[] | null> {
    try {
      return await this.next();
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  private async next(): Promise<Value[] | null> {
    if (this.closed) return null;
    while (!this.eof && this.pending.length === 0) {
      this.ctx.checkCancelled();
      const more = await this.feed();
      if (this.closed) return null;
      if (!more) {
        this.eof = true;
        if (this.spilledRuns > 0) await this.spillTable();
        else if (this.errorGroups > 0 || (this.valueCompare && !this.ordered))
          this.emitGroups(this.doneGroups(null));
        break;
      }
      if (this.valueCompare && this.ordered) await this.emitCompleted();
    }
    if (this.pending.length > 0) return this.pending.shift()!;
    this.ctx.checkCancelled();
    const spilled = this.spilledRuns > 0;
    if (spilled) {
      const merged = await this.mergedResults(BATCH_SIZE);
      if (merged.length > 0) return merged;
    }
    // The table: every group, or after spills the error-keyed ones kept back.
    if (!spilled || this.table.size > 0) await this.prepareCols(false);
    const out = this.tableResults(BATCH_SIZE);
    if (out.length > 0) return out;
    await this.finish();
    return null;
  }

  /** Pulls an input batch and feeds it to the groups; false at the end of the input. */
  protected async feed(): Promise<boolean> {
    const batch = await this.parent.pull();
    if (batch === null) return false;
    await this.consume(batch);
    return true;
  }

  /** Feeds a batch to the groups, spilling the table when it is full. */
  private async consume(batch: Value[]): Promise<void> {
    let i = 0;
    while (i < batch.length) {
      i = this.consumeSync(batch, i);
      if (i < batch.length) await this.spillTable();
    }
  }

  /**
   * Consumes batch[from...] until done or until a value needs a new group
   * while the table is full; returns the index reached.
   */
  private consumeSync(batch: Value[], from: number): number {
    if (this.nk === 0) return this.consumeNoKey(batch, from);
    if (this.nk === 1) return this.consumeOneKey(batch, from);
    const nk = this.nk;
    const keyExprs = this.keyExprs;
    const keyTypes = this.keyTypes;
    const table = this.table;
    for (let i = from; i < batch.length; i++) {
      const self = batch[i];
      let len = 0;
      let quiet = false;
      let prim: Value | null = null;
      for (let k = 0; k < nk; k++) {
        const v = keyExprs[k].eval(self);
        if (v.len >= 0 && isQuiet(v)) {
          quiet = true;
          break;
        }
        if (k === 0 && this.valueCompare) prim = this.updateMaxTableKey(v);
        keyTypes[k] = v.type;
        len = this.appendKey(len, v);
      }
      if (quiet) continue;
      const tv = this.tvs.id(keyTypes);
      const h = hashBytes(this.keyBuf, 0, len, tv);
      let g = table.find(this.keyBuf, 0, len, tv, h, false);
      if (g < 0) {
        if (table.size > 0 && this.full()) return i;
        g = this.newGroup(this.keyBuf, 0, len, tv, h, prim, true);
      }
      this.apply(g, self);
    }
    return batch.length;
  }

  /**
   * One key (input not known to be sorted), a batch at a time in passes:
   * evaluate every key, copying its bytes into one buffer and hashing
   * them; touch the table slots the lookups will read (their cache misses
   * overlap instead of following one another); find or add each group;
   * then feed the values to each aggregate in turn. Values reach each
   * group's aggregates in input order, as one at a time would.
   */
  private consumeOneKey(batch: Value[], from: number): number {
    // Sorted input tracks the largest key value by value; a small table
    // is in the cache, where the passes would only add work.
    if (this.valueCompare || this.table.size < WARM_GROUPS)
      return this.consumeOneKeyEach(batch, from);
    const keyExpr = this.keyExprs[0];
    const table = this.table;
    const tvs = this.tvs;
    const keyTypes = this.keyTypes;
    const n = batch.length - from;
    if (this.kHash.length < n) this.growBatchState(n);
    const kOff = this.kOff;
    const kLen = this.kLen;
    const kTv = this.kTv;
    const kHash = this.kHash;
    const grp = this.grp;
    let kb = this.keyBuf;
    let o = 0;
    let lastType: Type | null = null;
    let lastTv = 0;
    for (let j = 0; j < n; j++) {
      const v = keyExpr.eval(batch[from + j]);
      const len = v.len;
      if (len >= 0 && isQuiet(v)) {
        kLen[j] = -2;
        continue;
      }
      let tv = lastTv;
      if (v.type !== lastType) {
        keyTypes[0] = lastType = v.type;
        tv = lastTv = tvs.id(keyTypes);
      }
      kOff[j] = o;
      kLen[j] = len;
      kTv[j] = tv;
      if (len > 0) {
        if (o + len > kb.length) kb = this.growKeyBuf(o + len);
        const src = v.buf;
        if (len > 64) src.copy(kb, o, v.off, v.off + len);
        else for (let s = v.off, e = v.off + len, d = o; s < e; s++, d++) kb[d] = src[s];
      }
      kHash[j] = hashBytes(kb, o, len < 0 ? 0 : len, len < 0 ? ~tv : tv);
      if (len > 0) o += len;
    }
    this.sink ^= table.touch(kHash, n);
    let end = n;
    for (let j = 0; j < n; j++) {
      const len = kLen[j];
      if (len === -2) {
        grp[j] = -1;
        continue;
      }
      let g = table.find(kb, kOff[j], len, kTv[j], kHash[j], false);
      if (g < 0) {
        if (table.size > 0 && this.full()) {
          end = j;
          break;
        }
        g = this.newGroup(kb, kOff[j], len, kTv[j], kHash[j], null, true);
      }
      grp[j] = g;
    }
    const aggs = this.aggs;
    const cols = this.cols;
    for (let a = 0; a < aggs.length; a++) {
      const agg = aggs[a];
      const col = cols[a];
      if (col.touch) this.sink ^= col.touch(grp, end);
      for (let j = 0; j < end; j++) {
        const g = grp[j];
        if (g >= 0) agg.applyTo(col, g, batch[from + j]);
      }
    }
    return from + end;
  }

  private growBatchState(n: number): void {
    this.kOff = new Int32Array(n);
    this.kLen = new Int32Array(n);
    this.kTv = new Int32Array(n);
    this.kHash = new Int32Array(n);
    this.grp = new Int32Array(n);
  }

  /** One key, a value at a time (tracking the largest key when the input is sorted by it). */
  private consumeOneKeyEach(batch: Value[], from: number): number {
    const keyExpr = this.keyExprs[0];
    const table = this.table;
    const tvs = this.tvs;
    const keyTypes = this.keyTypes;
    let lastType: Type | null = null;
    let lastTv = 0;
    for (let i = from; i < batch.length; i++) {
      const self = batch[i];
      const v = keyExpr.eval(self);
      const len = v.len;
      if (len >= 0 && isQuiet(v)) continue;
      const prim = this.valueCompare ? this.updateMaxTableKey(v) : null;
      let tv = lastTv;
      if (v.type !== lastType) {
        keyTypes[0] = lastType = v.type;
        tv = lastTv = tvs.id(keyTypes);
      }
      const h = hashBytes(v.buf, v.off, len < 0 ? 0 : len, len < 0 ? ~tv : tv);
      let g = table.find(v.buf, v.off, len, tv, h, false);
      if (g < 0) {
        if (table.size > 0 && this.full()) return i;
        g = this.newGroup(v.buf, v.off, len, tv, h, prim, true);
      }
      this.apply(g, self);
    }
    return batch.length;
  }

  /** No keys: one group. */
  private consumeNoKey(batch: Value[], from: number): number {
    if (this.table.size === 0) {
      const tv = this.tvs.id([]);
      this.newGroup(this.keyBuf, 0, 0, tv, 0, null);
    }
    for (let i = from; i < batch.length; i++) this.apply(0, batch[i]);
    return batch.length;
  }

  /**
   * The group of a key (as table.find's arguments), made when absent (so
   * a caller need not look it up first: one probe of the table, not two).
   * missed: the caller's table.find of this key just returned -1.
   */
  protected newGroup(
    key: Buffer,
    off: number,
    len: number,
    tv: number,
    h: number,
    prim: Value | null,
    missed = false,
  ): number {
    const size = this.table.size;
    const g = missed
      ? this.table.addMissed(key, off, len, tv, h)
      : this.table.find(key, off, len, tv, h, true);
    if (this.table.size > size) {
      const cols = this.cols;
      for (let a = 0; a < cols.length; a++) cols[a].add();
      if (this.valueCompare) {
        this.groupvals.push(prim);
        if (prim === null) this.errorGroups++;
      }
    }
    return g;
  }

  /** A new group of a key known to be in no group (GroupTable.append). */
  protected appendGroup(key: Buffer, off: number, len: number, tv: number, h: number): number {
    const g = this.table.append(key, off, len, tv, h);
    const cols = this.cols;
    for (let a = 0; a < cols.length; a++) cols[a].add();
    return g;
  }

  private apply(g: number, self: Value): void {
    const aggs = this.aggs;
    const cols = this.cols;
    for (let a = 0; a < aggs.length; a++) aggs[a].applyTo(cols[a], g, self);
  }

  /**
   * Appends v to the key of several values being built in keyBuf (their
   * tagged bodies end to end) at len; returns where it ends.
   */
  protected appendKey(len: number, v: Value): number {
    const vlen = v.len;
    if (len + vlen + 10 > this.keyBuf.length) this.growKeyBuf(len + vlen + 10);
    const kb = this.keyBuf;
    if (vlen < 0) {
      kb[len++] = 0;
      return len;
    }
    if (vlen < 127) kb[len++] = vlen + 1;
    else len = putUvarint(kb, len, vlen + 1);
    const src = v.buf;
    for (let s = v.off, e = v.off + vlen; s < e; s++) kb[len++] = src[s];
    return len;
  }

  protected growKeyBuf(n: number): Buffer {
    const b = Buffer.allocUnsafe(Math.max(n, this.keyBuf.length * 2));
    this.keyBuf.copy(b);
    this.keyBuf = b;
    return b;
  }

  /** True when a new group must not be added before spilling. */
  protected full(): boolean {
    const t = this.table;
    // Error-keyed groups of sorted input stay in the table through spills
    // (groupvals): they do not count against -limit.
    if (t.size - this.errorGroups >= this.limit) return true;
    // Spilled runs held in memory (at most a quarter of the limit) count too.
    const bytes = t.bytes + t.size * (GROUP_OVERHEAD + AGG_OVERHEAD * this.na);
    return bytes + this.runs.memory.bytes >= this.ctx.memoryLimit;
  }

  /** The largest first key so far, for a new group of first key v; null when v is an error (groupvals). */
  protected updateMaxTableKey(v: Value): Value | null {
    // An error is not the largest key either: groups below it would be
    // called complete before their keys had passed.
    if (isError(v)) return null;
    if (v.len >= 0 && v.type !== this.keyType) {
      if (this.keyType === null && orderedKeyType(v.type)) this.keyType = v.type;
      else this.ordered = false;
    }
    const max = this.maxTableKey;
    if (max === null) this.maxTableKey = v.copy();
    else {
      const c = this.valueCompare!.compare(v, max);
      if (c > 0) this.maxTableKey = v.copy();
      // Out of order: emitted groups may come back, so emit no more.
      else if (c < 0 && this.emitted) this.ordered = false;
    }
    return this.maxTableKey!;
  }

  /** The output record type for outTypes (the last one is cached). */
  private recordType(types: Type[]): TypeRecord {
    const last = this.lastOutTypes;
    if (this.lastOutType && last.length === types.length) {
      let same = true;
      for (let i = 0; i < types.length; i++) {
        if (last[i] !== types[i]) {
          same = false;
          break;
        }
      }
      if (same) return this.lastOutType;
    }
    this.lastOutType = this.rb.type(types);
    this.lastOutTypes = types.slice();
    return this.lastOutType;
  }

  /** Builds group g's output record into the arena (call seal() before use). */
  private buildGroup(g: number, partial: boolean): Value {
    const arena = this.arena;
    const table = this.table;
    const nk = this.nk;
    const na = this.na;
    const types = this.outTypes;
    const keyTypes = this.tvs.types(table.keyTypes(g));
    arena.begin();
    const b = arena.b;
    this.rb.into(b);
    let off = table.keyOff(g);
    const kb = table.arena;
    for (let k = 0; k < nk; k++) {
      let start = off;
      let len = table.keyLen(g);
      if (nk > 1) {
        const tag = readUvarint(kb, off);
        start = uv.end;
        len = tag - 1;
        off = start + (len > 0 ? len : 0);
      }
      types[k] = keyTypes[k];
      if (partial) b.append(kb, start, len);
      else this.rb.append(kb, start, len);
    }
    for (let a = 0; a < na; a++) {
      const col = this.cols[a];
      const r = partial ? col.resultPartial(g, this.zctx) : col.result(g, this.zctx);
      types[nk + a] = r.type;
      if (partial) b.append(r.buf, r.off, r.len);
      else this.rb.append(r.buf, r.off, r.len);
    }
    return arena.end(partial ? this.partialType(types) : this.recordType(types));
  }

  private partialType(types: Type[]): TypeRecord {
    const id = this.partialTvs.id(types);
    let rt = this.partialTypes.get(id);
    if (!rt) {
      const fields: Field[] = types.map((type, i) => ({
        name: i < this.nk ? 'k' + i : 'a' + (i - this.nk),
        type,
      }));
      rt = this.zctx.lookupTypeRecord(fields);
      this.partialTypes.set(id, rt);
    }
    return rt;
  }

  /** The next results from the in-memory table, in order of first appearance. */
  private tableResults(max: number): Value[] {
    if (this.flat) return this.flatResults(max);
    const out: Value[] = [];
    const size = this.table.size;
    while (this.outGroup < size && out.length < max)
      out.push(this.buildGroup(this.outGroup++, false));
    this.arena.seal();
    return out;
  }

  /**
   * tableResults when every output field is at the top level (no nested
   * record to open): each record is written straight into one builder, its
   * keys copied from the table as they lie (several keys are stored
   * tagged, one after another, as the record's fields are), and its type
   * looked up again only when a field's type differs from the last
   * group's. The records lie end to end as the arena lays values out, so
   * the ZNG writer copies them as runs.
   */
  private flatResults(max: number): Value[] {
    const table = this.table;
    const nk = this.nk;
    const na = this.na;
    const cols = this.cols;
    const zctx = this.zctx;
    const types = this.flatTypes;
    const b = (this.flatBuilder ??= new Builder(64 * 1024));
    const kb = table.arena;
    const from = this.outGroup;
    const to = Math.min(table.size, from + max);
    const out = new Array<Value>(to - from);
    let rt = this.flatType;
    let lastTv = -1;
    for (let g = from; g < to; g++) {
      let same = rt !== null;
      const tv = table.keyTypes(g);
      if (tv !== lastTv) {
        const kt = this.tvs.types(tv);
        for (let k = 0; k < nk; k++) {
          if (types[k] !== kt[k]) {
            types[k] = kt[k];
            same = false;
          }
        }
        lastTv = tv;
      }
      b.grow(2);
      b.buf[b.len] = 0;
      b.buf[b.len + 1] = 0;
      b.len += 2;
      const start = b.len;
      const len = table.keyLen(g);
      if (nk === 1) b.append(kb, table.keyOff(g), len);
      else if (nk > 1) b.appendRaw(kb, table.keyOff(g), len);
      for (let a = 0; a < na; a++) {
        const r = cols[a].result(g, zctx);
        if (r.type !== types[nk + a]) {
          types[nk + a] = r.type;
          same = false;
        }
        appendTagged(b, r.buf, r.off, r.len);
      }
      if (!same) rt = this.recordType(types);
      const body = b.len - start;
      // The tag in the reserved bytes, as ValueArena does.
      if (body < 0x7f) b.buf[start - 1] = body + 1;
      out[g - from] = new Value(rt!, EMPTY, start, body);
    }
    this.flatType = rt;
    this.outGroup = to;
    const buf = Buffer.from(b.buf.subarray(0, b.len));
    for (let j = 0; j < out.length; j++) out[j].buf = buf;
    b.reset();
    return out;
  }

  /**
   * Sorted input: emits the groups whose first key is below the largest
   * seen so far (they cannot grow), sorted by that key.
   */
  private async emitCompleted(): Promise<void> {
    if (this.orderCheck) {
      const check = this.orderCheck;
      this.orderCheck = null;
      if (!(await check())) {
        this.ordered = false;
        return;
      }
    }
    if (this.spilledRuns > 0) {
      const out = await this.mergedResults(Infinity, this.maxSpillKey);
      if (out.length > 0) {
        this.pending.push(out);
        this.emitted = true;
      }
      return;
    }
    const max = this.maxTableKey;
    if (this.table.size === 0 || max === null) return;
    this.emitGroups(this.doneGroups(max));
  }

  /**
   * The groups (sorted input) whose first key is not an error and whose
   * largest key at creation is below max: every such group when max is
   * null (the end of the input).
   */
  private doneGroups(max: Value | null): number[] {
    const vc = this.valueCompare!;
    const done: number[] = [];
    for (let g = 0; g < this.table.size; g++) {
      const gv = this.groupvals[g];
      if (gv !== null && (max === null || vc.compare(gv, max) < 0)) done.push(g);
    }
    return done;
  }

  /** Outputs groups done (sorted input), sorted by key, and drops them from the table. */
  private emitGroups(done: number[]): void {
    if (done.length === 0) return;
    let out = done.map((g) => this.buildGroup(g, false));
    this.arena.seal();
    out = sortValues(out, {
      exprs: this.keyCompare!.exprs,
      reverse: this.dir < 0,
      nullsFirst: this.dir < 0,
    });
    const doneSet = new Set(done);
    this.keepGroups((g) => !doneSet.has(g));
    for (let i = 0; i < out.length; i += BATCH_SIZE)
      this.pending.push(out.slice(i, i + BATCH_SIZE));
    this.emitted = true;
  }

  /** Keeps only the groups for which keep(g) is true: their keys, aggregates and groupvals. */
  private keepGroups(keep: (g: number) => boolean): void {
    const kept = this.table.compact(keep);
    for (const col of this.cols) col.keep(kept);
    this.groupvals = kept.map((g) => this.groupvals[g]);
  }

  /** Lets the columns ready what reading out every group needs (AggColumn.prepare). */
  private async prepareCols(partial: boolean): Promise<void> {
    for (const c of this.cols) if (c.prepare) await c.prepare(partial);
  }

  /** Writes the table's partial results, sorted by key, to a new run. */
  protected async spillTable(): Promise<void> {
    const table = this.table;
    if (table.size === 0) return;
    await this.prepareCols(true);
    // Sorted input: error-keyed groups stay (groupvals), unless they are
    // all the table holds.
    const keepErrors = this.errorGroups > 0 && this.errorGroups < table.size;
    const parts: Value[] = [];
    for (let g = 0; g < table.size; g++)
      if (!keepErrors || this.groupvals[g] !== null) parts.push(this.buildGroup(g, true));
    this.arena.seal();
    // The merge's order (partialCompare): the sort's, but where a key is a
    // NaN, which the sort leaves anywhere among the numbers.
    const sorted = this.hasNaNKey(parts)
      ? parts.slice().sort((a, b) => this.partialCompare.compare(a, b))
      : sortValues(parts, {
          exprs: this.partialKeys,
          reverse: this.dir < 0,
          nullsFirst: this.dir < 0,
          strict: true,
        });
    this.spilledRuns++;
    const bytes = batchBytes(sorted);
    const held = this.runs.memory;
    if (this.merger) {
      // Sorted input whose merge has begun: the run joins the merge, from
      // memory while the held runs fit (the merge lets each go once read),
      // else from a file.
      if (held.bytes + bytes <= this.runs.holdBytes)
        await this.merger.add(new MemorySource(sorted, held, bytes));
      else await this.merger.add(await this.writeRun(sorted));
    } else if (this.runs.canHold(bytes)) await this.runs.hold(sorted, bytes);
    else await this.runs.push(await this.writeRun(sorted));
    if (!this.eof && this.valueCompare && this.nk > 0) {
      const last = sorted[sorted.length - 1];
      const k0 = this.partialKeys[0].eval(last);
      if (this.maxSpillKey === null || this.valueCompare.compare(k0, this.maxSpillKey) > 0) {
        this.maxSpillKey = k0.copy();
      }
    }
    if (keepErrors) {
      this.keepGroups((g) => this.groupvals[g] === null);
      return;
    }
    table.clear();
    for (const col of this.cols) col.clear();
    this.groupvals = [];
    this.errorGroups = 0;
  }

  /**
   * Up to max results merged from the spilled runs: each is the merge of
   * the consecutive partials with equal keys. With below, only groups
   * whose first key is below it (sorted input).
   */
  private async mergedResults(max: number, below: Value | null = null): Promise<Value[]> {
    this.merger ??= new RunMerger(await this.runs.take(FAN_IN), this.partialCompare);
    const merger = this.merger;
    const nk = this.nk;
    const out: Value[] = [];
    await merger.peek();
    while (out.length < max) {
      const first = merger.head();
      if (first === null) break;
      if (below !== null) {
        if (nk === 0 || this.valueCompare!.compare(this.partialKeys[0].eval(first), below) >= 0)
          break;
      }
      out.push(...(await this.mergeGroups(merger, false)));
    }
    this.arena.seal();
    return out;
  }

  /**
   * Merges the partials of the merger's next keys (the consecutive records
   * whose keys compare equal) into records built in the arena: one per
   * distinct key, in the order the keys first came, each the group's
   * result or with partial its merged partial record. Keys can compare
   * equal and differ (1, 1(uint64) and 1.; 0. and -0.): each is a group of
   * its own, as in the table.
   */
  private async mergeGroups(merger: RunMerger, partial: boolean): Promise<Value[]> {
    const cmp = this.partialCompare;
    const nk = this.nk;
    const na = this.na;
    const field = this.field;
    const first = merger.head()!;
    const cols = this.mergeCols;
    for (const col of cols) col.clear();
    // Each distinct key's first record (past the first, a copy: the
    // merger may reuse a record's bytes once it advances).
    const keys: Value[] = [];
    for (;;) {
      const rec = merger.head();
      if (rec === null || (rec !== first && cmp.compare(first, rec) !== 0)) break;
      let g = 0;
      while (g < keys.length && !this.sameKeys(keys[g], rec)) g++;
      if (g === keys.length) {
        keys.push(g === 0 ? first : rec.copy());
        for (const col of cols) col.add();
      }
      const rt = rec.type as TypeRecord;
      for (let a = 0; a < na; a++) {
        fieldAt(rec, rt, nk + a, field);
        cols[a].consumePartial(g, field);
      }
      const p = merger.advance();
      if (p) await p;
    }
    return keys.map((k, g) => this.mergedRecord(k, g, partial));
  }

  private readonly otherField = new Value(TypeNull, EMPTY, 0, -1);

  /** Whether partial records a and b have the same keys: the same types and bytes. */
  private sameKeys(a: Value, b: Value): boolean {
    const fa = this.field;
    const fb = this.otherField;
    for (let k = 0; k < this.nk; k++) {
      fieldAt(a, a.type as TypeRecord, k, fa);
      fieldAt(b, b.type as TypeRecord, k, fb);
      if (fa.type !== fb.type || !bytesEqual(fa.buf, fa.off, fa.len, fb.buf, fb.off, fb.len))
        return false;
    }
    return true;
  }

  /** The record of merged group g (mergeCols) whose keys are rec's. */
  private mergedRecord(rec: Value, g: number, partial: boolean): Value {
    const nk = this.nk;
    const na = this.na;
    const field = this.field;
    const cols = this.mergeCols;
    const rt = rec.type as TypeRecord;
    const arena = this.arena;
    arena.begin();
    const b = arena.b;
    this.rb.into(b);
    const types = this.outTypes;
    for (let k = 0; k < nk; k++) {
      fieldAt(rec, rt, k, field);
      types[k] = field.type;
      if (partial) b.append(field.buf, field.off, field.len);
      else this.rb.append(field.buf, field.off, field.len);
    }
    for (let a = 0; a < na; a++) {
      const r = partial ? cols[a].resultPartial(g, this.zctx) : cols[a].result(g, this.zctx);
      types[nk + a] = r.type;
      if (partial) b.append(r.buf, r.off, r.len);
      else this.rb.append(r.buf, r.off, r.len);
    }
    return arena.end(partial ? this.partialType(types) : this.recordType(types));
  }

  /** The spill directory, made on first use. */
  private async spillDir(): Promise<SpillDir> {
    return (this.spill ??= await SpillDir.create(this.ctx));
  }

  /** Whether a key of some partial record is a float NaN. */
  private hasNaNKey(parts: readonly Value[]): boolean {
    const f = this.field;
    for (const p of parts)
      for (let k = 0; k < this.nk; k++) {
        fieldAt(p, p.type as TypeRecord, k, f);
        if (isNaNKey(f.type, f.buf, f.off, f.len)) return true;
      }
    return false;
  }

  /** A new spill file of sorted values. */
  private async writeRun(sorted: Value[]): Promise<SpillFile> {
    return (await this.spillDir()).writeRun(this.ctx, sorted);
  }

  /** Merges spilled runs into one run of merged partials (SpilledRuns). */
  private async mergePartials(runs: BatchSource[]): Promise<SpillFile> {
    return mergeRuns(this.ctx, await this.spillDir(), runs, this.partialCompare, async (m) => {
      await m.peek();
      const batch: Value[] = [];
      while (batch.length < BATCH_SIZE && m.head() !== null)
        batch.push(...(await this.mergeGroups(m, true)));
      this.arena.seal();
      return batch;
    });
  }

  /** Merges of spilled runs into one (for stats and tests). */
  get compactions(): number {
    return this.runs.merges;
  }

  private async finish(): Promise<void> {
    if (this.merger) {
      await this.merger.close();
      this.merger = null;
    }
    await this.runs.close();
    if (this.spill) {
      await this.spill.remove();
      this.spill = null;
    }
    for (const col of this.cols) col.clear();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    await this.finish();
    await this.parent.close();
  }
}
