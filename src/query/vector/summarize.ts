// summarize on columns: the row engine's Summarize (its group table,
// aggregate columns, spilling and output order), fed from a batch's
// columns instead of evaluating keys and arguments on records. Rows go
// to groups in row order, as the row engine takes them, so groups are
// numbered by first appearance and each group's aggregates see its values
// in the same order: the output is the row engine's, byte for byte.
//
// The fast paths: a key column with one type is grouped by its dictionary
// (each distinct value is looked up in the group table once, then rows
// map through an array); count() adds to its counters directly; sum, min,
// max and avg of a numeric column whose values are exact float64s read a
// Float64Array; dcount of a column with a dictionary hashes each distinct
// value once. Several keys of one type each are grouped by their
// dictionaries' codes combined (each combination looked up once), or,
// without dictionaries, a chunk of rows at a time. Everything else goes
// value by value through the aggregate's own consume.

import { hashBytes } from '../../zed/hash';
import { Column, ColumnData, Dict, VecBatch } from '../../zed/vector';
import { Kind, TypeNull } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { AggColumn } from '../aggregates/agg';
import { AvgColumn } from '../aggregates/avg';
import { CountColumn } from '../aggregates/count';
import { codeOf, DCountColumn } from '../aggregates/dcount';
import { asideConfig, DCountAside } from '../aggregates/dcountaside';
import { MathColumn } from '../aggregates/math';
import { codeChunk, rowsCodes, sparseCodesOf, wasmCodes } from '../aggregates/metrowasm';
import { isMissing, isQuiet } from '../expr/errors';
import { TRUE } from '../expr/expr';
import { QueryContext } from '../runtime/context';
import { Operator } from '../runtime/operator';
import { Summarize, SummarizeOptions, WARM_GROUPS } from '../runtime/ops/summarize';
import { holds, PredicateEval, VecPredicate } from './filter';
import { VecOperator } from './operator';

/** Where a summarize's inputs are in its batches. */
export interface VecSummarizeInputs {
  /** The column of each key. */
  keys: number[];
  /** The column of each aggregate's argument (null: count(), which has none). */
  args: (number | null)[];
  /** Each aggregate's where clause on columns (null or absent: none). */
  wheres?: (VecPredicate | null)[];
}

/** A row engine parent that only passes close() on (the vector parent feeds the rows). */
function closer(p: VecOperator): Operator {
  return {
    pull: () => Promise.reject(new Error('internal error: summarize pulled rows')),
    close: () => p.close(),
  };
}

/**
 * Grouping by a key column's dictionary pays once the dictionary is built;
 * building one costs more than it saves for a high-cardinality key (313k
 * distinct of 1M rows: about a third of a cold group-by). So the first
 * query over a column's data groups value by value, and a dictionary is
 * built when the data is fed again (a cache shares it) or has one already
 * (a decode worker built it). Tests lower the count to cover both paths.
 */
export const groupByDictAfter = { uses: 1 };

/** Rows a chunk of groupOneType locates, hashes and touches at a time. */
const CHUNK = 1024;

/**
 * Groups from which groupOneType and groupByDict go a chunk at a time (a
 * smaller table is in the cache), and the distinct values in a chunk of
 * groupByDict (at most CHUNK). Tests lower them to cover those paths on
 * small inputs.
 */
export const chunkedFrom = { groups: WARM_GROUPS, values: CHUNK };

/**
 * Combinations of several keys' dictionary codes are multiplied out while
 * there are at most max(min, perRow × rows) of them (a dense table from
 * combination to group), else renumbered. Tests set both to 0 to cover
 * renumbering.
 */
export const denseCombos = { min: 1 << 16, perRow: 2 };

/**
 * Whether a column's data is worth a dictionary: it has one already, or a
 * cache is sharing it (fed more than groupByDictAfter.uses times).
 */
function dictPays(d: ColumnData): boolean {
  return d.dict !== null || d.uses > groupByDictAfter.uses;
}

export class VecSummarize extends Summarize {
  /** Per selected row of a batch: its group (-1: skipped). */
  private groups = new Int32Array(0);
  private readonly scratch: Value[];
  private readonly arg = new Value(TypeNull, EMPTY, 0, -1);

  constructor(
    ctx: QueryContext,
    private readonly vparent: VecOperator,
    opts: SummarizeOptions,
    private readonly inputs: VecSummarizeInputs,
  ) {
    super(ctx, closer(vparent), opts);
    this.scratch = inputs.keys.map(() => new Value(TypeNull, EMPTY, 0, -1));
    this.countsOnly = this.cols.every(
      (c, a) => c instanceof CountColumn && inputs.args[a] === null && !inputs.wheres?.[a],
    );
    this.pe = new PredicateEval(ctx.zctx.missing());
  }

  private readonly pe: PredicateEval;
  private whereRows = new Int32Array(0);
  private whereCodes = new Int8Array(0);
  private whereGroups = new Int32Array(0);

  /**
   * The groups of rows from..to of b for an aggregate with a where clause:
   * the rows' groups, and -1 (skipped) for each row whose clause is not
   * true, as the row engine's Aggregator.input decides.
   */
  private groupsWhere(pred: VecPredicate, b: VecBatch, from: number, to: number): Int32Array {
    const m = to - from;
    if (this.whereRows.length < m) {
      this.whereRows = new Int32Array(m);
      this.whereCodes = new Int8Array(m);
    }
    // this.groups holds each row's group up to `to` (a where clause rules
    // out the counts-only shortcut, which fills none).
    if (this.whereGroups.length < to) this.whereGroups = new Int32Array(this.groups.length);
    const rows = this.whereRows.subarray(0, m);
    const sel = b.sel;
    for (let k = from; k < to; k++) rows[k - from] = sel === null ? k : sel[k];
    const codes = this.whereCodes.subarray(0, m);
    this.pe.eval(pred, b, rows, codes);
    const grp = this.groups;
    const out = this.whereGroups;
    for (let k = from; k < to; k++) out[k] = holds(codes[k - from]) ? grp[k] : -1;
    return out;
  }

  /** Every aggregate is count(): a batch of one group needs no group per row. */
  private readonly countsOnly: boolean;

  protected override async feed(): Promise<boolean> {
    const b = await this.vparent.pull();
    // A parent may reuse a batch object for its next rows.
    this.comboOf = null;
    if (b === null) return false;
    const m = b.sel === null ? b.n : b.sel.length;
    this.countUses(b);
    if (this.nk === 0) {
      // One group: no group per row to work out.
      if (this.table.size === 0) this.newGroup(this.keyBuf, 0, 0, this.tvs.id([]), 0, null);
      this.aggregate(b, 0, m, 0);
      return true;
    }
    if (this.groups.length < m) this.groups = new Int32Array(m);
    const byDict = this.byDict(b);
    if (!this.asideTried && this.expectedRows(b, m) >= asideConfig.minRows) this.goAside(b, byDict);
    // With a dcount aside, a part of the rows at a time, so that the
    // worker keeps up with their codes while the next part is grouped.
    const step = this.aside && !byDict ? asideConfig.rows : m;
    let from = 0;
    while (from < m) {
      if (this.aside) await this.roomAside();
      const upto = Math.min(m, from + step);
      const end = this.group(b, byDict, from, upto);
      this.aggregate(b, from, end);
      from = end;
      if (end < upto) {
        await this.spillTable();
        this.comboGroupsOk = false;
      }
    }
    return true;
  }

  /** Waits, without blocking, until each dcount aside may hand its worker another part. */
  private async roomAside(): Promise<void> {
    for (const c of this.cols) if (c instanceof DCountAside) await c.room();
  }

  private asideTried = false;
  private aside = false;

  /**
   * The rows a first batch (m of its b.n selected) says the query will
   * group: the source's count, as selective as this batch, and at least
   * this batch's. A pool of many small objects then goes aside too.
   */
  private expectedRows(b: VecBatch, m: number): number {
    const all = this.vparent.rowsAtMost();
    return all === Infinity ? m : Math.max(m, Math.round((all * m) / b.n));
  }

  /**
   * At a first batch b of a query that will group asideConfig.minRows rows
   * or more: each dcount of one column goes to a worker thread
   * (dcountaside.ts), while there is one.
   */
  private goAside(b: VecBatch, byDict: boolean): void {
    this.asideTried = true;
    // Grouping by a dictionary looks each distinct key up once a call, so
    // it goes at a batch whole; the worker would then get the rows only
    // after the grouping, and save nothing where this batch is all there
    // is (the warm group-by measured 0.36 -> 0.65 s by parts); with more
    // to come, it works on them while the next batch is grouped.
    // A summarize of sorted input reads some groups early, which a column
    // aside cannot do as the column in-thread does (DCountAside.result).
    const m = b.sel === null ? b.n : b.sel.length;
    if (this.table.size > 0 || (byDict && this.expectedRows(b, m) <= m)) return;
    if (this.valueCompare !== null) return;
    const cols = this.cols;
    for (let a = 0; a < cols.length; a++) {
      const c = this.inputs.args[a];
      if (c === null || !(cols[a] instanceof DCountColumn) || b.cols[c].type === null) continue;
      const aside = DCountAside.lease();
      if (aside === null) return;
      cols[a] = aside;
      this.aside = true;
    }
  }

  /**
   * Counts this feed of the columns a dictionary may serve (the keys',
   * dcount's arguments'), each once: past groupByDictAfter.uses a cache is
   * sharing them, and building their dictionaries pays.
   */
  private countUses(b: VecBatch): void {
    const datas = this.usesScratch;
    datas.clear();
    for (const c of this.inputs.keys) datas.add(b.cols[c].data);
    this.inputs.args.forEach((c, a) => {
      const acol = this.cols[a];
      if (c !== null && isDCount(acol)) datas.add(b.cols[c].data);
    });
    for (const d of datas) d.uses++;
  }

  private readonly usesScratch = new Set<ColumnData>();

  private codeStarts = new Int32Array(0);
  private codeOut = new Uint32Array(0);
  private readonly codeVal = new Value(TypeNull, EMPTY, 0, -1);

  /**
   * The dcount codes of the selected rows from..to of a one-type column
   * (index k - from), hashed in WebAssembly (metrowasm.ts) where the
   * module takes the column's type, else by codeOf.
   */
  private rowCodes(col: Column, sel: Int32Array | null, from: number, to: number): Uint32Array {
    const t = col.type!;
    const wasm = wasmCodes(t);
    const n = to - from;
    if (this.codeOut.length < n) this.codeOut = new Uint32Array(n);
    const out = this.codeOut;
    if (wasm && sel === null) {
      // Rows end to end: their span is their own bytes.
      rowsCodes(col.data.buf, col.data.off, from, to, t.under.id, out);
      return out;
    }
    const chunk = codeChunk.rows;
    if (this.codeStarts.length < chunk) this.codeStarts = new Int32Array(chunk);
    const starts = this.codeStarts;
    const off = col.data.off;
    const v = this.codeVal;
    // A chunk of rows at a time, at most codeChunk.rows whose bytes span
    // at most codeChunk.bytes, so that the module's memory stays small.
    for (let c = from; c < to;) {
      let lo = Infinity;
      let hi = 0;
      let used = 0;
      let k = c;
      while (k < to && k - c < chunk) {
        const i = sel === null ? k : sel[k];
        const p = off[i];
        const e = off[i + 1];
        starts[k - c] = p;
        used += e - p;
        if (p < lo) lo = p;
        if (e > hi) hi = e;
        k++;
        if (hi - lo >= codeChunk.bytes) break;
      }
      const into = out.subarray(c - from, k - from);
      if (!wasm || hi - lo > 4 * used + codeChunk.slack) {
        // Few rows selected from a long span (after a filter): hashing
        // them here costs less than copying the span to the module.
        for (let j = c; j < k; j++) into[j - c] = codeOf(col.at(sel === null ? j : sel[j], v));
      } else sparseCodesOf(col.data.buf, lo, hi, starts, k - c, t.under.id, into);
      c = k;
    }
    return out;
  }

  /**
   * Assigns groups to the selected rows from..m; stops at a row that needs
   * a new group while the table is full and returns its index (else m).
   */
  private group(b: VecBatch, byDict: boolean, from: number, m: number): number {
    const nk = this.nk;
    const col = b.cols[this.inputs.keys[0]];
    if (byDict) return this.groupByDict(b, col, from, m);
    if (this.valueCompare === null && this.keysOneType(b)) {
      if (nk === 1) return this.groupOneType(b, col, from, m);
      const dicts = this.keyDicts(b);
      if (dicts !== null) return this.groupByDicts(b, dicts, from, m);
      return this.groupKeysOneType(b, from, m);
    }
    return this.groupEach(b, from, m);
  }

  /** Whether every key column of b has one type, not an error type (so no key is quiet). */
  private keysOneType(b: VecBatch): boolean {
    for (const c of this.inputs.keys) {
      const t = b.cols[c].type;
      if (t === null || t.kind === Kind.Error) return false;
    }
    return true;
  }

  /**
   * Each key column's dictionary, where every one has one built, its data
   * is shared (dictPays) or its values are few; else null.
   */
  private keyDicts(b: VecBatch): Dict[] | null {
    const out: Dict[] = [];
    for (const c of this.inputs.keys) {
      const col = b.cols[c];
      const d = dictPays(col.data) ? col.dict() : col.dictIfFew();
      if (d === null) return null;
      out.push(d);
    }
    return out;
  }

  /** Whether group() groups batch b by its key column's dictionary. */
  private byDict(b: VecBatch): boolean {
    const col = b.cols[this.inputs.keys[0]];
    return this.nk === 1 && col.type !== null && this.valueCompare === null && dictPays(col.data);
  }

  /** Per row of a chunk (groupOneType): its key's offset, length and hash. */
  private cOff = new Int32Array(CHUNK);
  private cLen = new Int32Array(CHUNK);
  private cHash = new Int32Array(CHUNK);
  private touched = 0;

  /**
   * One key of one type (not an error type), without a dictionary: a chunk
   * of rows at a time, the keys located and hashed first, then the table
   * slots they will probe read (GroupTable.touch: the reads are independent,
   * so their cache misses overlap rather than follow one another), then
   * each row's group found or made. A table still in the cache
   * (WARM_GROUPS) goes row by row.
   */
  private groupOneType(b: VecBatch, col: Column, from: number, m: number): number {
    const sel = b.sel;
    const grp = this.groups;
    const table = this.table;
    this.keyTypes[0] = col.type!;
    const tv = this.tvs.id(this.keyTypes);
    const buf = col.data.buf;
    const scratch = this.scratch[0];
    const kOff = this.cOff;
    const kLen = this.cLen;
    const kHash = this.cHash;
    for (let start = from; start < m; start += CHUNK) {
      const end = Math.min(m, start + CHUNK);
      if (table.size < chunkedFrom.groups) {
        const stop = this.groupEach(b, start, end);
        if (stop < end) return stop;
        continue;
      }
      const n = end - start;
      for (let j = 0; j < n; j++) {
        const k = start + j;
        const v = col.at(sel === null ? k : sel[k], scratch);
        const p = v.off;
        const len = v.len;
        kOff[j] = p;
        kLen[j] = len;
        kHash[j] = hashBytes(buf, p, len < 0 ? 0 : len, len < 0 ? ~tv : tv);
      }
      const done = this.lookUpChunk(buf, n, tv, grp, start);
      if (done < n) return start + done;
    }
    return m;
  }

  /**
   * The groups of the n keys located and hashed in cOff, cLen and cHash
   * (in buf, of type vector tv), into out[at, at+n): the table slots they
   * will probe read first (GroupTable.touch; unless touch is false, for a
   * table still in the cache), then each found or made. Returns how many
   * have their group: fewer than n where the table filled up at a new key.
   */
  private lookUpChunk(
    buf: Buffer,
    n: number,
    tv: number,
    out: Int32Array,
    at: number,
    touch = true,
  ): number {
    const table = this.table;
    const kOff = this.cOff;
    const kLen = this.cLen;
    const kHash = this.cHash;
    if (touch) this.touched ^= table.touch(kHash, n);
    for (let j = 0; j < n; j++) {
      const len = kLen[j];
      const h = kHash[j];
      let g = table.find(buf, kOff[j], len, tv, h, false);
      if (g < 0) {
        if (table.size > 0 && this.full()) return j;
        g = this.newGroup(buf, kOff[j], len, tv, h, null, true);
      }
      out[at + j] = g;
    }
    return n;
  }

  /** One key of one type: each distinct value is looked up once. */
  private groupByDict(b: VecBatch, col: Column, from: number, m: number): number {
    const d = col.dict();
    const codes = d.codes;
    const sel = b.sel;
    const grp = this.groups;
    const table = this.table;
    // -1: not looked up yet; -2: a quiet key (the row is dropped).
    const trans = new Int32Array(d.count).fill(-1);
    // Into an empty table, each distinct value makes a new group: none
    // is looked up (the table indexes them if a later batch looks).
    const fresh = table.size === 0;
    // Into an empty table go d.count groups, their keys of about the
    // column's average length.
    if (fresh)
      table.reserve(
        d.count,
        Math.ceil((col.data.buf.length / Math.max(1, codes.length)) * d.count),
      );
    this.keyTypes[0] = col.type!;
    const tv = this.tvs.id(this.keyTypes);
    if (table.size >= chunkedFrom.groups) return this.dictChunks(b, col, d, trans, tv, from, m);
    const v = this.scratch[0];
    for (let k = from; k < m; k++) {
      const i = sel === null ? k : sel[k];
      const c = codes[i];
      let g = trans[c];
      if (g === -1) {
        col.at(d.rows[c], v);
        const len = v.len;
        if (len >= 0 && isQuiet(v)) {
          trans[c] = -2;
          grp[k] = -1;
          continue;
        }
        const h = hashBytes(v.buf, v.off, len < 0 ? 0 : len, len < 0 ? ~tv : tv);
        if (table.size > 0 && this.full()) {
          g = fresh ? -1 : table.find(v.buf, v.off, len, tv, h, false);
          if (g < 0) return k;
        } else if (fresh) g = this.appendGroup(v.buf, v.off, len, tv, h);
        else g = this.newGroup(v.buf, v.off, len, tv, h, null);
        trans[c] = g;
      } else if (g === -2) {
        grp[k] = -1;
        continue;
      }
      grp[k] = g;
    }
    return m;
  }

  /** Per value of a chunk (dictChunks): its code, and the row it first appears at. */
  private cCode = new Int32Array(CHUNK);
  private cFirst = new Int32Array(CHUNK);
  private cGroup = new Int32Array(CHUNK);

  /**
   * groupByDict into a table past the cache: the values not yet looked up
   * are taken a chunk at a time, in the order they first appear, located,
   * hashed and their slots touched (as groupOneType does with rows), then
   * looked up; then the rows up to the chunk's end take their groups.
   * Where the table fills up at a new value, the rows before its first
   * row have their groups, and that row is returned.
   */
  private dictChunks(
    b: VecBatch,
    col: Column,
    d: Dict,
    trans: Int32Array,
    tv: number,
    from: number,
    m: number,
  ): number {
    const codes = d.codes;
    const sel = b.sel;
    const grp = this.groups;
    const buf = col.data.buf;
    const v = this.scratch[0];
    const kOff = this.cOff;
    const kLen = this.cLen;
    const kHash = this.cHash;
    const pend = this.cCode;
    const first = this.cFirst;
    const most = Math.max(1, Math.min(CHUNK, chunkedFrom.values));
    let k = from;
    while (k < m) {
      let n = 0;
      let end = k;
      for (; end < m; end++) {
        const c = codes[sel === null ? end : sel[end]];
        if (trans[c] !== -1) continue;
        if (n === most) break;
        col.at(d.rows[c], v);
        const len = v.len;
        if (len >= 0 && isQuiet(v)) {
          trans[c] = -2;
          continue;
        }
        trans[c] = -3;
        pend[n] = c;
        first[n] = end;
        kOff[n] = v.off;
        kLen[n] = len;
        kHash[n] = hashBytes(buf, v.off, len < 0 ? 0 : len, len < 0 ? ~tv : tv);
        n++;
      }
      const found = this.cGroup;
      const done = this.lookUpChunk(buf, n, tv, found, 0);
      for (let j = 0; j < done; j++) trans[pend[j]] = found[j];
      const stop = done < n ? first[done] : -1;
      if (stop >= 0) end = stop;
      for (; k < end; k++) {
        const g = trans[codes[sel === null ? k : sel[k]]];
        grp[k] = g === -2 ? -1 : g;
      }
      if (stop >= 0) return stop;
    }
    return m;
  }

  /**
   * Per selected row of the batch comboOf: the code of its combination of
   * key dictionary codes (comboCount of them), and per code its group
   * (comboGroups: -1 not looked up yet; valid while comboGroupsOk).
   */
  private combo = new Int32Array(0);
  private comboOf: VecBatch | null = null;
  private comboCount = 0;
  private comboGroups = new Int32Array(0);
  private comboGroupsOk = false;

  /**
   * Several keys, each a column of one type with a dictionary: each row's
   * codes are combined into one code per distinct combination (combos),
   * and each combination's key is built and looked up in the table once.
   */
  private groupByDicts(b: VecBatch, dicts: Dict[], from: number, m: number): number {
    if (this.comboOf !== b) {
      this.combos(b, dicts, m);
      this.comboOf = b;
      this.comboGroupsOk = false;
    }
    if (!this.comboGroupsOk) {
      if (this.comboGroups.length < this.comboCount)
        this.comboGroups = new Int32Array(this.comboCount);
      this.comboGroups.fill(-1, 0, this.comboCount);
      this.comboGroupsOk = true;
    }
    const trans = this.comboGroups;
    const combo = this.combo;
    const grp = this.groups;
    // Into an empty table each combination is a new group: none is
    // looked up (the table indexes them if a later batch looks).
    const fresh = this.table.size === 0;
    const cols = this.inputs.keys.map((c) => b.cols[c]);
    const keyTypes = this.keyTypes;
    for (let j = 0; j < cols.length; j++) keyTypes[j] = cols[j].type!;
    const tv = this.tvs.id(keyTypes);
    const sel = b.sel;
    for (let k = from; k < m; k++) {
      const c = combo[k];
      let g = trans[c];
      if (g < 0) {
        g = this.keyGroup(cols, sel === null ? k : sel[k], tv, fresh);
        if (g < 0) return k;
        trans[c] = g;
      }
      grp[k] = g;
    }
    return m;
  }

  /**
   * The group of row i's keys in cols (of type vector tv), made if new
   * (appended without a lookup where fresh: the caller knows it is); -1
   * when the table is full.
   */
  private keyGroup(cols: Column[], i: number, tv: number, fresh: boolean): number {
    const table = this.table;
    const len = this.keyOf(cols, i, 0);
    const kb = this.keyBuf;
    const h = hashBytes(kb, 0, len, tv);
    const g = fresh ? -1 : table.find(kb, 0, len, tv, h, false);
    if (g >= 0) return g;
    if (table.size > 0 && this.full()) return -1;
    return fresh
      ? this.appendGroup(kb, 0, len, tv, h)
      : this.newGroup(kb, 0, len, tv, h, null, true);
  }

  /**
   * Fills combo[0, m) with each selected row's combination code: codes
   * multiplied out while their product stays small (a dense table of
   * groups), and renumbered in order of first appearance (renumberPairs)
   * where it would not.
   */
  private combos(b: VecBatch, dicts: Dict[], m: number): void {
    if (this.combo.length < m) this.combo = new Int32Array(this.groups.length);
    const combo = this.combo;
    const sel = b.sel;
    // The most distinct values first: renumberPairs then finds most pairs
    // by their first code.
    dicts = dicts.slice().sort((x, y) => y.count - x.count);
    const c0 = dicts[0].codes;
    if (sel === null) combo.set(c0.subarray(0, m));
    else for (let k = 0; k < m; k++) combo[k] = c0[sel[k]];
    let count = dicts[0].count;
    const dense = Math.max(denseCombos.min, denseCombos.perRow * m);
    for (let j = 1; j < dicts.length; j++) {
      const cj = dicts[j].codes;
      const nj = dicts[j].count;
      if (count * nj <= dense) {
        // The product is below 2^31: int32 arithmetic.
        if (sel === null) for (let k = 0; k < m; k++) combo[k] = (combo[k] * nj + cj[k]) | 0;
        else for (let k = 0; k < m; k++) combo[k] = (combo[k] * nj + cj[sel[k]]) | 0;
        count *= nj;
      } else count = renumberPairs(combo, count, cj, sel, m);
    }
    this.comboCount = count;
  }

  /**
   * The key of row i of cols at keyBuf[at...] as the row engine keys
   * several values: their tagged bodies end to end. Returns where it ends.
   */
  private keyOf(cols: Column[], i: number, at: number): number {
    const vals = this.scratch;
    let len = at;
    for (let j = 0; j < cols.length; j++) len = this.appendKey(len, cols[j].at(i, vals[j]));
    return len;
  }

  /**
   * Several keys, each a column of one type, without dictionaries: a
   * chunk of rows at a time, their keys built end to end and hashed, then
   * (in a table past the cache) the slots they will probe read, then each
   * row's group found or made, as groupOneType does for one key.
   */
  private groupKeysOneType(b: VecBatch, from: number, m: number): number {
    const sel = b.sel;
    const grp = this.groups;
    const cols = this.inputs.keys.map((c) => b.cols[c]);
    const keyTypes = this.keyTypes;
    for (let j = 0; j < cols.length; j++) keyTypes[j] = cols[j].type!;
    const tv = this.tvs.id(keyTypes);
    const kOff = this.cOff;
    const kLen = this.cLen;
    const kHash = this.cHash;
    for (let start = from; start < m; start += CHUNK) {
      const end = Math.min(m, start + CHUNK);
      const n = end - start;
      let o = 0;
      for (let j = 0; j < n; j++) {
        const k = start + j;
        const e = this.keyOf(cols, sel === null ? k : sel[k], o);
        kOff[j] = o;
        kLen[j] = e - o;
        kHash[j] = hashBytes(this.keyBuf, o, e - o, tv);
        o = e;
      }
      const touch = this.table.size >= chunkedFrom.groups;
      const done = this.lookUpChunk(this.keyBuf, n, tv, grp, start, touch);
      if (done < n) return start + done;
    }
    return m;
  }

  /** Any keys, value by value, as the row engine does. */
  private groupEach(b: VecBatch, from: number, m: number): number {
    const nk = this.nk;
    const sel = b.sel;
    const grp = this.groups;
    const table = this.table;
    const keyTypes = this.keyTypes;
    const cols = this.inputs.keys.map((c) => b.cols[c]);
    const vals = this.scratch;
    for (let k = from; k < m; k++) {
      const i = sel === null ? k : sel[k];
      let quiet = false;
      let prim: Value | null = null;
      for (let j = 0; j < nk; j++) {
        const v = cols[j].at(i, vals[j]);
        if (v.len >= 0 && isQuiet(v)) {
          quiet = true;
          break;
        }
        if (j === 0 && this.valueCompare) prim = this.updateMaxTableKey(v);
        keyTypes[j] = v.type;
      }
      if (quiet) {
        grp[k] = -1;
        continue;
      }
      const tv = this.tvs.id(keyTypes);
      let g: number;
      if (nk === 1) {
        const v = vals[0];
        const len = v.len;
        const h = hashBytes(v.buf, v.off, len < 0 ? 0 : len, len < 0 ? ~tv : tv);
        g = table.find(v.buf, v.off, len, tv, h, false);
        if (g < 0) {
          if (table.size > 0 && this.full()) return k;
          g = this.newGroup(v.buf, v.off, len, tv, h, prim, true);
        }
      } else {
        // Several keys: their tagged bodies end to end, as the row engine keys them.
        let len = 0;
        for (let j = 0; j < nk; j++) len = this.appendKey(len, vals[j]);
        const h = hashBytes(this.keyBuf, 0, len, tv);
        g = table.find(this.keyBuf, 0, len, tv, h, false);
        if (g < 0) {
          if (table.size > 0 && this.full()) return k;
          g = this.newGroup(this.keyBuf, 0, len, tv, h, prim, true);
        }
      }
      grp[k] = g;
    }
    return m;
  }

  /**
   * Feeds the selected rows from..to to their groups' aggregates, one
   * aggregate at a time: row k's group is groups[k], or one for all.
   */
  private aggregate(b: VecBatch, from: number, to: number, one = -1): void {
    if (one >= 0 && !this.countsOnly) {
      if (this.groups.length < to) this.groups = new Int32Array(to);
      this.groups.fill(one, from, to);
    }
    const sel = b.sel;
    const wheres = this.inputs.wheres;
    for (let a = 0; a < this.na; a++) {
      const acol = this.cols[a];
      const c = this.inputs.args[a];
      const where = wheres?.[a] ?? null;
      const grp = where === null ? this.groups : this.groupsWhere(where, b, from, to);
      if (c === null) {
        if (acol instanceof CountColumn) {
          if (one >= 0 && where === null) acol.countGroup(one, to - from);
          else acol.countGroups(grp, from, to);
        } else for (let k = from; k < to; k++) if (grp[k] >= 0) acol.consume(grp[k], TRUE);
        continue;
      }
      const col = b.cols[c];
      const arg = this.arg;
      const slow = (g: number, i: number) => {
        const v = col.at(i, arg);
        if (!isMissing(v)) acol.consume(g, v);
      };
      if (col.type !== null && col.type.kind !== Kind.Error) {
        // One type, and no error("missing") to skip.
        if (acol instanceof MathColumn || acol instanceof AvgColumn) {
          const nums = col.numbers();
          if (nums !== null) {
            if (acol instanceof MathColumn)
              acol.consumeNumbers(
                col.type.under.id,
                grp,
                sel,
                from,
                to,
                nums.vals,
                nums.nulls,
                slow,
              );
            else acol.consumeNumbers(grp, sel, from, to, nums.vals, nums.nulls);
            continue;
          }
        }
        if (isDCount(acol)) {
          const d = col.data;
          if (!dictPays(d) && !d.extra?.has('dcount')) {
            // The data's first use: a code per row beats a dictionary of
            // it that no later query would share.
            if (acol instanceof DCountAside && sel === null && wasmCodes(col.type)) {
              // Their rows' bytes, hashed by the worker.
              acol.consumeRows(grp, from, to, col.data.buf, col.data.off, col.type.under.id);
            } else acol.consumeCodes(grp, from, to, this.rowCodes(col, sel, from, to));
            continue;
          }
          const codes = dcountCodes(col);
          const dc = col.dict().codes;
          for (let k = from; k < to; k++) {
            const g = grp[k];
            if (g >= 0) acol.consumeCode(g, codes[dc[sel === null ? k : sel[k]]]);
          }
          if (acol instanceof DCountAside) acol.flush();
          continue;
        }
      }
      for (let k = from; k < to; k++) {
        const g = grp[k];
        if (g >= 0) slow(g, sel === null ? k : sel[k]);
      }
    }
  }
}

/** Whether an aggregate's column is dcount's, in-thread or aside. */
function isDCount(c: AggColumn): c is DCountColumn | DCountAside {
  return c instanceof DCountColumn || c instanceof DCountAside;
}

/**
 * The dcount sparse code of each distinct value of a one-type column
 * (kept with the column's data when the type is primitive, whose ID is
 * the same in every type context).
 */
function dcountCodes(col: Column): Uint32Array {
  const d = col.dict();
  const t = col.type!;
  const keep = t.id < 30 ? col.data : null;
  const cached = keep?.extra?.get('dcount') as Uint32Array | undefined;
  if (cached !== undefined) return cached;
  const v = new Value(t, EMPTY, 0, -1);
  const out = new Uint32Array(d.count);
  for (let c = 0; c < d.count; c++) out[c] = codeOf(col.at(d.rows[c], v));
  if (keep !== null) (keep.extra ??= new Map()).set('dcount', out);
  return out;
}

/**
 * Renumbers the pairs (combo[k], codes[sel[k]]) of rows [0, m) in order of
 * first appearance, in place, where combo's codes are below count;
 * returns how many distinct pairs there are. Each first code's first
 * pair is kept in an array by that code (most first codes have one
 * second code: a name and its type), the others in a hash table.
 */
function renumberPairs(
  combo: Int32Array,
  count: number,
  codes: Int32Array,
  sel: Int32Array | null,
  m: number,
): number {
  // Per first code: its first pair's second code (-1: none yet) and ID.
  const first = new Int32Array(2 * count).fill(-1);
  // The other pairs: (first code, second code, ID + 1) per slot.
  let cap = 1024;
  let slots = new Int32Array(4 * cap);
  let used = 0;
  let next = 0;
  for (let k = 0; k < m; k++) {
    const a = combo[k];
    const c = codes[sel === null ? k : sel[k]];
    const f = 2 * a;
    const fc = first[f];
    if (fc === c) {
      combo[k] = first[f + 1];
      continue;
    }
    if (fc < 0) {
      first[f] = c;
      first[f + 1] = next;
      combo[k] = next++;
      continue;
    }
    const mask = cap - 1;
    for (let s = pairHash(a, c) & mask; ; s = (s + 1) & mask) {
      const p = 4 * s;
      const id = slots[p + 2];
      if (id === 0) {
        slots[p] = a;
        slots[p + 1] = c;
        slots[p + 2] = next + 1;
        combo[k] = next++;
        if (++used * 2 > cap) {
          cap *= 2;
          slots = rehashPairs(slots, cap);
        }
        break;
      }
      if (slots[p] === a && slots[p + 1] === c) {
        combo[k] = id - 1;
        break;
      }
    }
  }
  return next;
}

/** renumberPairs' slots in a table of cap slots. */
function rehashPairs(old: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const slots = new Int32Array(4 * cap);
  const mask = cap - 1;
  for (let p = 0; p < old.length; p += 4) {
    if (old[p + 2] === 0) continue;
    let s = pairHash(old[p], old[p + 1]) & mask;
    while (slots[4 * s + 2] !== 0) s = (s + 1) & mask;
    slots.set(old.subarray(p, p + 3), 4 * s);
  }
  return slots;
}

/** A hash of a pair of codes. */
function pairHash(a: number, c: number): number {
  const h = Math.imul(a ^ Math.imul(c, 0x9e3779b1), 0x85ebca6b);
  return h ^ (h >>> 15);
}
