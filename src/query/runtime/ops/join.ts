// The join operator: `[inner|left|right|anti] join on lkey=rkey [f:=e, ...]`,
// the reference's merge join. Both inputs must be sorted ascending by their
// keys (nulls first, as the reference compares join keys); keys equal in
// the total order match (so 1 matches 1.0).
//
// For each left value (those whose key is missing are dropped) the right
// input is advanced to the run of values with an equal key (right values
// with a missing key are skipped); each match yields the left value (its
// record, with names and union wrappers removed) extended by the fields
// `f:=e` evaluated on the right value (fields that come out error("quiet")
// are left out; a right field whose name the left record has is renamed
// name_2, name_3, ...). Left values without a match are emitted unchanged
// by left and anti joins; matched ones are dropped by anti joins. A right
// join is a left join with the inputs (and keys) swapped.

import { compareValues } from '../../../zed/compare';
import { Field, Type, TypeNull, TypeRecord } from '../../../zed/types';
import { EMPTY, Value } from '../../../zed/value';
import { isMissing, isQuiet } from '../../expr/errors';
import { Expr } from '../../expr/expr';
import { underValue } from '../../expr/path';
import { RecordBuilder } from '../../expr/recordbuilder';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { BATCH_SIZE, Operator, ValueCursor } from '../operator';
import { KeyCopy } from './sort-keys';

export type JoinStyle = 'inner' | 'left' | 'right' | 'anti';

export interface JoinOptions {
  style: JoinStyle;
  /** Evaluated on left values. */
  leftKey: Expr;
  /** Evaluated on right values (may be the same Expr object as leftKey). */
  rightKey: Expr;
  /** `lhs:=rhs` fields taken from the matching right value. */
  assignments: { lhs: string[]; rhs: Expr }[];
}

function compareKeys(a: KeyCopy, b: Value): number {
  return compareValues(a.type, a.buf, 0, a.len, b.type, b.buf, b.off, b.len, false);
}

export class Join implements Operator {
  private readonly left: ValueCursor;
  private readonly right: ValueCursor;
  private readonly leftKey: Expr;
  private readonly rightKey: Expr;
  private readonly inner: boolean;
  private readonly anti: boolean;
  private readonly key = new KeyCopy();
  private joinKey: KeyCopy | null = null;
  private joinSet: Value[] = [];
  private readonly arena = new ValueArena();
  private readonly paths: string[][];
  private readonly rhs: Expr[];
  private readonly cutTypes: Type[];
  private readonly builders = new Map<string, RecordBuilder>();
  private readonly combined = new Map<Type, Map<Type, TypeRecord>>();
  private readonly tmp = new Value(TypeNull, EMPTY, 0, -1);
  private closed = false;

  constructor(
    private readonly ctx: QueryContext,
    left: Operator,
    right: Operator,
    opts: JoinOptions,
  ) {
    let lk = opts.leftKey;
    let rk = opts.rightKey;
    if (opts.style === 'right') {
      [left, right] = [right, left];
      [lk, rk] = [rk, lk];
    }
    this.left = new ValueCursor(left);
    this.right = new ValueCursor(right);
    this.leftKey = lk;
    this.rightKey = rk;
    this.inner = opts.style === 'inner';
    this.anti = opts.style === 'anti';
    this.paths = opts.assignments.map((a) => a.lhs);
    this.rhs = opts.assignments.map((a) => a.rhs);
    this.cutTypes = new Array<Type>(this.rhs.length);
    // Checks the field paths now (duplicates, non-adjacent nested fields).
    this.builder(this.paths.map(() => true));
  }

  async pull(): Promise<Value[] | null> {
    if (this.closed) return null;
    try {
      return await this.next();
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  private async next(): Promise<Value[] | null> {
    const out: Value[] = [];
    while (out.length < BATCH_SIZE) {
      this.ctx.checkCancelled();
      const l = await this.left.peek();
      if (l === null) break;
      this.left.advance();
      const k = this.leftKey.eval(l);
      if (isMissing(k)) continue;
      // The right key may be the same node: keep a copy of the left key.
      this.key.set(k, false);
      const set = await this.joinSetFor(this.key);
      if (set === null) {
        if (!this.inner) out.push(l);
        continue;
      }
      if (this.anti) continue;
      for (const r of set) out.push(this.splice(l, r));
    }
    this.arena.seal();
    return out.length > 0 ? out : null;
  }

  /** The right values whose key equals key, or null. */
  private async joinSetFor(key: KeyCopy): Promise<Value[] | null> {
    if (
      this.joinKey !== null &&
      compareValues(
        key.type,
        key.buf,
        0,
        key.len,
        this.joinKey.type,
        this.joinKey.buf,
        0,
        this.joinKey.len,
        false,
      ) === 0
    ) {
      return this.joinSet;
    }
    for (;;) {
      const r = await this.right.peek();
      if (r === null) return null;
      const rk = this.rightKey.eval(r);
      if (isMissing(rk)) {
        this.right.advance();
        continue;
      }
      const c = compareKeys(key, rk);
      if (c < 0) return null;
      if (c > 0) {
        this.right.advance();
        continue;
      }
      const jk = (this.joinKey ??= new KeyCopy());
      jk.type = key.type;
      jk.len = key.len;
      if (jk.buf.length < key.len) jk.buf = Buffer.allocUnsafe(key.len);
      key.buf.copy(jk.buf, 0, 0, Math.max(key.len, 0));
      this.joinSet = await this.readJoinSet(jk);
      return this.joinSet;
    }
  }

  private async readJoinSet(jk: KeyCopy): Promise<Value[]> {
    const set: Value[] = [];
    for (;;) {
      const r = await this.right.peek();
      if (r === null) return set;
      const rk = this.rightKey.eval(r);
      if (isMissing(rk)) {
        this.right.advance();
        continue;
      }
      if (compareKeys(jk, rk) !== 0) return set;
      set.push(r);
      this.right.advance();
    }
  }

  /** The record builder for the assignments kept (those not quiet). */
  private builder(keep: boolean[]): RecordBuilder {
    const id = keep.map((k) => (k ? '1' : '0')).join('');
    let rb = this.builders.get(id);
    if (!rb) {
      rb = new RecordBuilder(
        this.ctx.zctx,
        this.paths.filter((_, i) => keep[i]),
      );
      this.builders.set(id, rb);
    }
    return rb;
  }

  /** The left record extended by the assignments evaluated on r. */
  private splice(l: Value, r: Value): Value {
    const left = underValue(l, this.tmp);
    const lt = left.type;
    if (!(lt instanceof TypeRecord)) throw new Error('join: left value is not a record');
    const arena = this.arena;
    arena.begin();
    const b = arena.b;
    if (left.len > 0) b.appendRaw(left.buf, left.off, left.len);
    const n = this.rhs.length;
    const vals: Value[] = [];
    const keep: boolean[] = [];
    for (let i = 0; i < n; i++) {
      const v = this.rhs[i].eval(r);
      const q = v.len >= 0 && isQuiet(v);
      keep.push(!q);
      if (!q) vals.push(v.copy());
    }
    const rb = this.builder(keep);
    rb.into(b);
    const types = this.cutTypes;
    types.length = 0;
    for (const v of vals) {
      rb.append(v.buf, v.off, v.len);
      types.push(v.type);
    }
    const rt = rb.type(types);
    return arena.end(this.combinedType(lt, rt));
  }

  /** The left record type with the cut fields appended (renamed on clashes). */
  private combinedType(lt: TypeRecord, rt: TypeRecord): TypeRecord {
    let m = this.combined.get(lt);
    if (!m) {
      m = new Map();
      this.combined.set(lt, m);
    }
    let t = m.get(rt);
    if (!t) {
      const fields: Field[] = lt.fields.slice();
      for (const f of rt.fields) {
        let name = f.name;
        for (let k = 2; lt.indexOf(name) >= 0; k++) name = `${f.name}_${k}`;
        fields.push({ name, type: f.type });
      }
      t = this.ctx.zctx.lookupTypeRecord(fields);
      m.set(rt, t);
    }
    return t;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.joinSet = [];
    await Promise.all([this.left.op.close(), this.right.op.close()]);
  }
}
