// Building index objects. A field rule's index holds each distinct value
// of the field in the data object; a type rule's, each distinct value of
// the type found anywhere in the object's values. Both are written as the
// reference's index records, sorted by key (in index order, order.ts):
//
//   field rule  {key:{<field path>:<value>},count:uint64,seek:{min:int64,max:int64}}
//   type rule   {key:<value>,count:uint64,seek:{min:int64,max:int64}}
//
// count is how many values hold the key and seek.min/seek.max the ordinals
// (positions in the data object) of the first and last of them, so a
// lookup tells both whether an object may match and which of its seek
// index's streams to read. An agg rule's index is its script's output.
//
// Keys that can never equal a constant are left out: nulls and float NaNs.
// The index object is written as ZNG streams of about INDEX_STRIDE bytes
// with a seek index beside it (index/<rule>/<id>-seek.zng), so a lookup
// reads the small seek index and then one stream.

import { BufferSink, ValueReader } from '../../formats/io';
import { newWriter } from '../../formats/zng';
import { ObjectStore } from '../../storage/storage';
import { bytesCompare, bytesEqual } from '../../zed/primitive';
import { TypeContext } from '../../zed/context';
import { decodeFloat } from '../../zed/primitive';
import { parseType } from '../../formats/zson';
import { isFloat, Type, TypeInt64, TypePrimitive, TypeRecord, TypeUint64 } from '../../zed/types';
import { Value } from '../../zed/value';
import { Walker } from '../../zed/walk';
import { Builder } from '../../zed/zcode';
import { encodeInt, encodeUint } from '../../zed/make';
import { KeyGetter } from '../keys';
import { Ksuid } from '../ksuid';
import { SeekEntry } from '../records';
import { encodeSeekIndex } from '../seekindex';
import { IndexObject, indexKey, indexSeekKey } from './object';
import { compareKeys } from './order';
import { FieldRule, IndexRule, TypeRule } from './rules';

/** Bytes of index records per stream (and seek index entry). */
export const INDEX_STRIDE = 8 * 1024;

/** Runs an agg rule's script over values (the query layer supplies it). */
export type ScriptRunner = (
  script: string,
  input: ValueReader,
  ctx: TypeContext,
) => Promise<Value[]>;

/** One distinct key: how many values hold it and the first and last ordinal. */
interface Entry {
  key: Value;
  count: number;
  first: number;
  last: number;
}

/** Bytes of each arena chunk the kept keys are copied into. */
const CHUNK = 1 << 20;

/**
 * The keys one rule finds in an object, one row per value holding a key:
 * type, bytes (copied into arena chunks) and ordinal, in growable columns
 * rather than an object per key, since an object may hold millions.
 */
class KeyColumns {
  private chunks: Buffer[] = [Buffer.allocUnsafe(CHUNK)];
  private pos = 0;
  n = 0;
  chunk = new Int32Array(1024);
  off = new Int32Array(1024);
  len = new Int32Array(1024);
  type = new Int32Array(1024);
  ordinal = new Float64Array(1024);

  push(type: number, buf: Buffer, off: number, len: number, ordinal: number): void {
    if (this.n === this.chunk.length) this.grow();
    let c = this.chunks.length - 1;
    if (len > CHUNK / 2) {
      this.chunks.push(Buffer.from(buf.subarray(off, off + len)));
      c = this.chunks.length - 1;
      this.chunks.push(Buffer.allocUnsafe(CHUNK));
      this.pos = 0;
      this.off[this.n] = 0;
    } else {
      if (this.pos + len > CHUNK) {
        this.chunks.push(Buffer.allocUnsafe(CHUNK));
        this.pos = 0;
        c++;
      }
      buf.copy(this.chunks[c], this.pos, off, off + len);
      this.off[this.n] = this.pos;
      this.pos += len;
    }
    const i = this.n++;
    this.chunk[i] = c;
    this.len[i] = len;
    this.type[i] = type;
    this.ordinal[i] = ordinal;
  }

  private grow(): void {
    const size = this.chunk.length * 2;
    const g = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.chunk = g(this.chunk, (k) => new Int32Array(k));
    this.off = g(this.off, (k) => new Int32Array(k));
    this.len = g(this.len, (k) => new Int32Array(k));
    this.type = g(this.type, (k) => new Int32Array(k));
    this.ordinal = g(this.ordinal, (k) => new Float64Array(k));
  }

  buf(i: number): Buffer {
    return this.chunks[this.chunk[i]];
  }
}

/** Distinct keys of one rule, gathered value by value. */
abstract class Collector {
  private keys = new KeyColumns();
  /** Key types translated into ctx (translating a complex type is not cheap), and their numbers. */
  private types = new Map<Type, number>();
  private typeList: Type[] = [];

  constructor(
    readonly rule: IndexRule,
    /** Context the kept keys' types live in. */
    protected ctx: TypeContext,
  ) {}

  abstract add(v: Value, ordinal: number): void;

  /** The number of t's translation into ctx. */
  protected local(t: Type): number {
    let n = this.types.get(t);
    if (n === undefined) {
      const lt = this.ctx.translate(t);
      n = this.typeList.indexOf(lt);
      if (n < 0) n = this.typeList.push(lt) - 1;
      this.types.set(t, n);
    }
    return n;
  }

  protected localType(n: number): Type {
    return this.typeList[n];
  }

  protected keep(k: Value, ordinal: number): void {
    if (k.len < 0) return;
    const id = k.type.under.id;
    if (isFloat(id) && Number.isNaN(decodeFloat(k.buf, k.off, k.len))) return;
    this.keys.push(this.local(k.type), k.buf, k.off, k.len, ordinal);
  }

  /**
   * Each distinct key in index order (keys equal in it but of
   * different types, as 1 and 1.0, apart and in a fixed order), with its
   * count and first and last ordinal.
   */
  *entries(): Generator<Entry> {
    const k = this.keys;
    const types = this.typeList;
    const order = new Uint32Array(k.n);
    for (let i = 0; i < k.n; i++) order[i] = i;
    const cmp = (a: number, b: number): number => {
      const ab = k.buf(a);
      const bb = k.buf(b);
      const c = compareKeys(
        types[k.type[a]],
        ab,
        k.off[a],
        k.len[a],
        types[k.type[b]],
        bb,
        k.off[b],
        k.len[b],
      );
      if (c !== 0) return c;
      if (k.type[a] !== k.type[b]) return k.type[a] - k.type[b];
      return (
        bytesCompare(ab, k.off[a], k.len[a], bb, k.off[b], k.len[b]) || k.ordinal[a] - k.ordinal[b]
      );
    };
    order.sort(cmp);
    for (let i = 0; i < order.length;) {
      const a = order[i];
      let j = i + 1;
      while (
        j < order.length &&
        k.type[order[j]] === k.type[a] &&
        bytesEqual(k.buf(order[j]), k.off[order[j]], k.len[order[j]], k.buf(a), k.off[a], k.len[a])
      )
        j++;
      yield {
        key: new Value(types[k.type[a]], k.buf(a), k.off[a], k.len[a]),
        count: j - i,
        first: k.ordinal[a],
        last: k.ordinal[order[j - 1]],
      };
      i = j;
    }
  }
}

class FieldCollector extends Collector {
  private getter: KeyGetter;
  private scratch = Value.null();

  constructor(rule: FieldRule, ctx: TypeContext) {
    super(rule, ctx);
    this.getter = new KeyGetter(rule.fields[0]);
  }

  add(v: Value, ordinal: number): void {
    this.keep(this.getter.get(v, this.scratch), ordinal);
  }
}

class TypeCollector extends Collector {
  private walker = new Walker();
  private ordinal = 0;
  private visit: (t: Type, buf: Buffer, off: number, len: number) => boolean;

  constructor(rule: TypeRule, ctx: TypeContext) {
    super(rule, ctx);
    const want = parseType(ctx, rule.type);
    const scratch = Value.null();
    // A primitive rule type matches values of named types over it too: the
    // index may then hold more than the reference's, never less.
    const prim = want.under instanceof TypePrimitive ? want.under.id : -1;
    this.visit = (t, buf, off, len) => {
      if (prim >= 0 ? t.under.id === prim : this.localType(this.local(t)) === want) {
        this.keep(scratch.set(want, buf, off, len), this.ordinal);
      }
      return false;
    };
  }

  add(v: Value, ordinal: number): void {
    this.ordinal = ordinal;
    this.walker.walk(v.type, v.buf, v.off, v.len, this.visit);
  }
}

/** The index records of a field or type rule's keys. */
class RecordMaker {
  private b = new Builder(256);
  private keyTypes = new Map<Type, TypeRecord>();
  private seekType: TypeRecord;

  constructor(
    private ctx: TypeContext,
    private rule: FieldRule | TypeRule,
  ) {
    this.seekType = ctx.lookupTypeRecord([
      { name: 'min', type: TypeInt64 },
      { name: 'max', type: TypeInt64 },
    ]);
  }

  /** The record type for a key of type t. */
  private typeFor(t: Type): TypeRecord {
    let rt = this.keyTypes.get(t);
    if (!rt) {
      let keyType = t;
      if (this.rule.kind === 'field') {
        const path = this.rule.fields[0];
        for (let i = path.length - 1; i >= 0; i--) {
          keyType = this.ctx.lookupTypeRecord([{ name: path[i], type: keyType }]);
        }
      }
      rt = this.ctx.lookupTypeRecord([
        { name: 'key', type: keyType },
        { name: 'count', type: TypeUint64 },
        { name: 'seek', type: this.seekType },
      ]);
      this.keyTypes.set(t, rt);
    }
    return rt;
  }

  make(e: Entry): Value {
    const b = this.b;
    b.reset();
    b.beginContainer();
    const depth = this.rule.kind === 'field' ? this.rule.fields[0].length : 0;
    for (let i = 0; i < depth; i++) b.beginContainer();
    b.append(e.key.buf, e.key.off, e.key.len);
    for (let i = 0; i < depth; i++) b.endContainer();
    b.appendBytes(encodeUint(e.count));
    b.beginContainer();
    b.appendBytes(encodeInt(e.first));
    b.appendBytes(encodeInt(e.last));
    b.endContainer();
    b.endContainer();
    const { buf, off, len } = b.body();
    return Value.fromBytes(this.typeFor(e.key.type), Buffer.from(buf.subarray(off, off + len)));
  }
}

/** Rough bytes a record takes in a ZNG values frame. */
function frameBytes(v: Value): number {
  return (v.len > 0 ? v.len : 0) + 3;
}

/**
 * Writes sorted index records as ZNG streams with a seek index keyed by
 * the entries' keys (in metaCtx); both objects are durable on return.
 */
async function writeSorted(
  storage: ObjectStore,
  keys: { data: string; seek: string },
  entries: Iterable<Entry>,
  maker: RecordMaker,
  metaCtx: TypeContext,
): Promise<void> {
  const sink = new BufferSink();
  const zw = newWriter(sink);
  const seek: SeekEntry[] = [];
  const metaKey = (e: Entry) =>
    new Value(metaCtx.translate(e.key.type), e.key.buf, e.key.off, e.key.len).copy();
  let recs: Value[] = [];
  let bytes = 0;
  let first: Entry | null = null;
  let last: Entry | null = null;
  let n = 0;
  const flush = async () => {
    if (first === null || last === null) return;
    const offset = zw.position;
    await zw.write(recs);
    await zw.endStream();
    seek.push({
      min: metaKey(first),
      max: metaKey(last),
      valOff: n - recs.length,
      valCnt: recs.length,
      offset,
      length: zw.position - offset,
    });
    recs = [];
    bytes = 0;
    first = null;
  };
  for (const e of entries) {
    const r = maker.make(e);
    recs.push(r);
    bytes += frameBytes(r);
    first ??= e;
    last = e;
    n++;
    if (bytes >= INDEX_STRIDE) await flush();
  }
  await flush();
  await zw.close();
  await Promise.all([
    storage.put(keys.data, sink.bytes()),
    storage.put(keys.seek, await encodeSeekIndex(seek, metaCtx)),
  ]);
}

/** What building index objects needs of the lake. */
export interface BuildContext {
  storage: ObjectStore;
  /** The lake's metadata context (seek index keys live in it). */
  metaCtx: TypeContext;
  /** Opens a fresh reader of the data object's values, in stored order. */
  open(ctx: TypeContext): ValueReader;
  runScript?: ScriptRunner;
}

/**
 * Builds and stores the index objects of one data object for the rules:
 * field and type rules in one pass over its values, then one pass per agg
 * rule through the script runner.
 *
 * The storage keys depend only on the rule and the data object, and so
 * does what is written there: another branch holding the same object may
 * have committed the very same index object. So a build that fails or
 * loses leaves what it wrote (the same bytes any build writes there), and
 * only vacuum removes index objects, with their data objects.
 */
export async function buildIndexes(
  c: BuildContext,
  pool: Ksuid,
  object: Ksuid,
  rules: readonly IndexRule[],
): Promise<IndexObject[]> {
  const keysOf = (r: IndexRule) => ({
    data: indexKey(pool, r.id, object),
    seek: indexSeekKey(pool, r.id, object),
  });
  const ctx = new TypeContext();
  const collectors: Collector[] = [];
  for (const r of rules) {
    if (r.kind === 'field') collectors.push(new FieldCollector(r, ctx));
    else if (r.kind === 'type') collectors.push(new TypeCollector(r, ctx));
  }
  if (collectors.length > 0) {
    const reader = c.open(ctx);
    let ordinal = 0;
    try {
      for (let batch = await reader.read(); batch; batch = await reader.read()) {
        for (const v of batch) {
          for (const col of collectors) col.add(v, ordinal);
          ordinal++;
        }
      }
    } finally {
      await reader.close?.();
    }
    for (const col of collectors) {
      const rule = col.rule as FieldRule | TypeRule;
      await writeSorted(
        c.storage,
        keysOf(rule),
        col.entries(),
        new RecordMaker(ctx, rule),
        c.metaCtx,
      );
    }
  }
  for (const r of rules) {
    if (r.kind !== 'agg') continue;
    if (!c.runScript) throw new Error('agg index rules need a query engine to run their script');
    const actx = new TypeContext();
    const out = await c.runScript(r.script, c.open(actx), actx);
    const sink = new BufferSink();
    const zw = newWriter(sink);
    await zw.write(out);
    await zw.close();
    const k = keysOf(r);
    // An agg index is not searched: its seek index is empty.
    await Promise.all([
      c.storage.put(k.data, sink.bytes()),
      c.storage.put(k.seek, await encodeSeekIndex([], c.metaCtx)),
    ]);
  }
  return rules.map((r) => new IndexObject(r, object));
}
