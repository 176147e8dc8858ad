// Writing data objects. Values are copied into a buffer until the pool's
// threshold of bytes is reached; the buffer is then sorted by the pool key
// (a stable sort: values with equal keys keep their arrival order) and
// written as one ZNG data object, with an end-of-stream marker after every
// seek_stride bytes of values and a seek index entry for each stream.
// Nothing here is visible to readers until a commit names the objects.
//
// With the lake's scan cache on, each stream is also put in the cache as it
// is written, in the form a scan would cache it (writethrough.ts), so the
// first query after a load is served from memory. The object's ID is fresh
// and no commit names it yet, so no scan can read those entries before the
// commit; a writer that is aborted drops them, and any left behind by a
// commit whose outcome is unknown are evicted like any other entry.
//
// With the pool's `vectors` option on (the default), each object also gets
// its columnar copy (vectors.ts) written from the same sorted values.

import { ByteSink } from '../formats/io';
import { newWriter } from '../formats/zng';
import { compare, compareValues, isNaNKey } from '../zed/compare';
import { TypeContext } from '../zed/context';
import { bytesCompare, decodeFloat, decodeInt, decodeUint } from '../zed/primitive';
import { goStableSort, inconsistentKeys, int8ByBytes } from '../zed/stable';
import { ID, Type } from '../zed/types';
import { Value } from '../zed/value';
import { ObjectStore } from '../storage/storage';
import { Order, PoolConfig, primaryKey } from './config';
import { ScanCache } from './cache';
import { Ksuid } from './ksuid';
import { KeyGetter } from './keys';
import { DataObject, dataKey, seekIndexKey } from './object';
import { SeekEntry } from './records';
import { encodeSeekIndex } from './seekindex';
import { arrayBatches, vectorKey, writeVector } from './vectors';
import { StreamCacher } from './writethrough';

const ARENA_CHUNK = 1 << 20;
/** Bytes between two bodies still copied with them (a value's type ID and tag). */
const MAX_GAP = 16;

export interface WriterStats {
  objects: number;
  records: number;
  /** Bytes of ZNG written to data objects. */
  bytes: number;
}

export class PoolWriter {
  private vals: Value[] = [];
  private buffered = 0;
  private arena = Buffer.allocUnsafe(ARENA_CHUNK);
  private arenaPos = 0;
  private written: DataObject[] = [];
  /** Objects written with a columnar copy. */
  readonly vectors: Ksuid[] = [];
  readonly stats: WriterStats = { objects: 0, records: 0, bytes: 0 };
  private keys: KeyGetter;
  private cacher: StreamCacher | null;
  /** The object being written, while it is (its cache entries go if it fails). */
  private writing: Ksuid | null = null;

  constructor(
    private storage: ObjectStore,
    private pool: PoolConfig,
    /** The lake's context: object key ranges are kept in it. */
    private metaCtx: TypeContext,
    /** The lake's scan cache: streams written go into it (when it is on). */
    private cache: ScanCache | null = null,
  ) {
    this.keys = new KeyGetter(primaryKey(pool.layout));
    this.cacher = cache?.enabled ? new StreamCacher(cache) : null;
  }

  /** Buffers values (copying them), writing an object at each threshold. */
  async write(batch: readonly Value[]): Promise<void> {
    for (let i = 0; i < batch.length;) {
      i = this.copyRun(batch, i);
      if (this.buffered >= this.pool.threshold) await this.flush();
    }
  }

  /**
   * Buffers batch[i] and the values after it whose bodies lie in order and
   * close together in one buffer (as a reader's values of one frame do,
   * with only their tags between them) with a single copy into the arena,
   * up to the value that brings the buffered bytes to the threshold.
   * Returns the index after the last value buffered.
   */
  private copyRun(batch: readonly Value[], i: number): number {
    const first = batch[i];
    const len0 = first.len;
    if (len0 <= 0 || len0 > ARENA_CHUNK / 4) {
      this.vals.push(this.copy(first));
      this.buffered += len0 > 0 ? len0 : 1;
      return i + 1;
    }
    if (this.arenaPos + len0 > this.arena.length) {
      this.arena = Buffer.allocUnsafe(ARENA_CHUNK);
      this.arenaPos = 0;
    }
    const room = this.arena.length - this.arenaPos;
    const src = first.buf;
    const s0 = first.off;
    const limit = this.pool.threshold;
    let end = s0 + len0;
    let buffered = this.buffered + len0;
    let j = i + 1;
    while (j < batch.length && buffered < limit) {
      const v = batch[j];
      const len = v.len;
      if (len <= 0 || v.buf !== src || v.off < end || v.off - end > MAX_GAP) break;
      if (v.off + len - s0 > room) break;
      end = v.off + len;
      buffered += len;
      j++;
    }
    const arena = this.arena;
    const at = this.arenaPos;
    src.copy(arena, at, s0, end);
    const shift = at - s0;
    const vals = this.vals;
    for (let k = i; k < j; k++) {
      const v = batch[k];
      vals.push(new Value(v.type, arena, v.off + shift, v.len));
    }
    this.arenaPos = at + end - s0;
    this.buffered = buffered;
    return j;
  }

  private copy(v: Value): Value {
    const len = v.len;
    if (len <= 0) return new Value(v.type, this.arena, 0, len);
    if (len > ARENA_CHUNK / 4)
      return new Value(v.type, Buffer.from(v.buf.subarray(v.off, v.off + len)), 0, len);
    if (this.arenaPos + len > this.arena.length) {
      this.arena = Buffer.allocUnsafe(ARENA_CHUNK);
      this.arenaPos = 0;
    }
    v.buf.copy(this.arena, this.arenaPos, v.off, v.off + len);
    const out = new Value(v.type, this.arena, this.arenaPos, len);
    this.arenaPos += len;
    return out;
  }

  private async flush(): Promise<void> {
    if (this.vals.length === 0) return;
    const vals = this.vals;
    this.vals = [];
    this.buffered = 0;
    // Start a fresh arena: the sorted values keep the old chunks alive only
    // until the object is written.
    this.arena = Buffer.allocUnsafe(ARENA_CHUNK);
    this.arenaPos = 0;
    const sorted = sortByKey(vals, this.keys, this.pool.layout.order);
    const id = Ksuid.generate();
    this.writing = id;
    const o = await writeObject(
      this.storage,
      this.pool,
      sorted,
      this.keys,
      this.metaCtx,
      id,
      this.cacher,
    );
    this.writing = null;
    this.written.push(o);
    this.stats.objects++;
    this.stats.records += o.count;
    this.stats.bytes += o.size;
    if (this.pool.vectors && (await writeVector(this.storage, this.pool, id, arrayBatches(sorted))))
      this.vectors.push(id);
  }

  /** Writes what remains and returns every object written. */
  async close(): Promise<DataObject[]> {
    await this.flush();
    return this.written;
  }

  /** Removes the objects written so far (a failed or abandoned load). */
  async abort(): Promise<void> {
    this.vals = [];
    const objs = this.written;
    this.written = [];
    if (this.cache !== null) {
      for (const o of objs) this.cache.dropObject(`${this.pool.id}/${o.id}`);
      if (this.writing !== null) this.cache.dropObject(`${this.pool.id}/${this.writing}`);
    }
    await Promise.all(
      objs.map((o) =>
        Promise.all([
          this.storage.delete(dataKey(this.pool.id, o.id)),
          this.storage.delete(seekIndexKey(this.pool.id, o.id)),
          this.storage.delete(vectorKey(this.pool.id, o.id)),
        ]),
      ),
    ).catch(() => undefined);
  }
}

/**
 * The values in pool-key order (nulls last in ascending order, first in
 * descending), stably: equal keys keep their arrival order (the API
 * contract asks for it; the reference breaks such ties by the values'
 * bytes, docs/compatibility.md). Integer, time and float keys are
 * compared through a numeric approximation first, exactly only on ties.
 * Keys whose order is not transitive (zed/stable.ts, inconsistentKeys),
 * or int8s compared by their bytes, are sorted by Go's stable sort, as
 * the reference sorts them: only its algorithm then gives its order
 * (where no two keys are equal, and ties with a NaN are broken by bytes
 * as the reference breaks them).
 */
export function sortByKey(vals: Value[], getter: KeyGetter, order: Order): Value[] {
  const n = vals.length;
  const keyT: Type[] = new Array(n);
  const keyB: Buffer[] = new Array(n);
  const keyO = new Int32Array(n);
  const keyL = new Int32Array(n);
  const approx = new Float64Array(n);
  const scratch = new Value(vals[0]?.type, vals[0]?.buf, 0, 0);
  let numeric = true;
  for (let i = 0; i < n; i++) {
    const k = getter.get(vals[i], scratch);
    keyT[i] = k.type;
    keyB[i] = k.buf;
    keyO[i] = k.off;
    keyL[i] = k.len;
    if (!numeric) continue;
    if (k.len < 0) {
      approx[i] = Infinity;
      continue;
    }
    const id = k.type.under.id;
    if (id <= ID.Uint64) approx[i] = approxUint(k.buf, k.off, k.len);
    else if (id >= ID.Int8 && id <= ID.Time && id !== ID.Int128 && id !== ID.Int256) {
      approx[i] = approxInt(k.buf, k.off, k.len);
    } else if (id === ID.Float16 || id === ID.Float32 || id === ID.Float64) {
      const f = decodeFloat(k.buf, k.off, k.len);
      if (Number.isNaN(f)) numeric = false;
      approx[i] = f;
    } else numeric = false;
  }
  const sign = order === 'desc' ? -1 : 1;
  // The reference's comparator (nulls max); a descending pool swaps the operands.
  const exact = (a: number, b: number): number =>
    compareValues(keyT[a], keyB[a], keyO[a], keyL[a], keyT[b], keyB[b], keyO[b], keyL[b], true);
  const ordered = sign < 0 ? (a: number, b: number) => exact(b, a) : exact;
  const goSort =
    int8ByBytes(keyT, keyL, false) ||
    inconsistentKeys(keyT, keyL, (i) => decodeFloat(keyB[i], keyO[i], keyL[i]));
  if (goSort) numeric = false;
  // Input already in order (common: logs arrive by time) needs no sort
  // (where Go's sort must run, it may reorder even such input).
  let inOrder = !goSort;
  for (let i = 1; i < n && inOrder; i++) {
    const x = approx[i - 1];
    const y = approx[i];
    if (numeric && x !== y) inOrder = (x < y ? -sign : sign) < 0;
    else inOrder = ordered(i - 1, i) <= 0;
  }
  if (inOrder) return vals;
  const byExact = (a: number, b: number): number => ordered(a, b) || a - b;
  let idx: ArrayLike<number>;
  if (numeric) {
    // Radix sort on the approximations (stable), then put each run of equal
    // approximations in exact order.
    const order = radixOrder(approx, sign < 0);
    for (let i = 0; i < n;) {
      let j = i + 1;
      while (j < n && approx[order[j]] === approx[order[i]]) j++;
      if (j - i > 1) order.set(Array.from(order.subarray(i, j)).sort(byExact), i);
      i = j;
    }
    idx = order;
  } else {
    const order: number[] = new Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    if (goSort) {
      // A NaN equals every number, so where one is tied its place is
      // settled as the reference settles it, by the values' bytes (else it
      // would stand in the way of the numbers around it); other ties keep
      // their arrival order.
      const nan = (i: number) => isNaNKey(keyT[i], keyB[i], keyO[i], keyL[i]);
      const bytes = (a: number, b: number) => {
        const x = vals[a];
        const y = vals[b];
        return bytesCompare(x.buf, x.off, x.len, y.buf, y.off, y.len);
      };
      goStableSort(order, (a, b) => {
        const c = ordered(a, b);
        if (c !== 0 || !(nan(a) || nan(b))) return c < 0;
        return (sign < 0 ? bytes(b, a) : bytes(a, b)) < 0;
      });
    } else order.sort(byExact);
    idx = order;
  }
  const out: Value[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = vals[idx[i]];
  return out;
}

const f64 = new Float64Array(1);
const f64w = new Uint32Array(f64.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The permutation that sorts the numbers (ascending, or descending when
 * reversed), stably: an LSD radix sort over their IEEE bits made
 * order-preserving, 16 bits a pass, skipping passes where every digit is
 * the same.
 */
function radixOrder(nums: Float64Array, reverse: boolean): Uint32Array {
  const n = nums.length;
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  const H = LITTLE ? 1 : 0;
  const L = 1 - H;
  for (let i = 0; i < n; i++) {
    f64[0] = nums[i];
    let h = f64w[H];
    let l = f64w[L];
    if (h & 0x80000000) {
      h = ~h;
      l = ~l;
    } else {
      h |= 0x80000000;
    }
    if (reverse) {
      h = ~h;
      l = ~l;
    }
    hi[i] = h >>> 0;
    lo[i] = l >>> 0;
  }
  let idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  let tmp = new Uint32Array(n);
  const count = new Uint32Array(65536);
  for (let pass = 0; pass < 4; pass++) {
    const words = pass < 2 ? lo : hi;
    const shift = pass % 2 === 0 ? 0 : 16;
    count.fill(0);
    for (let i = 0; i < n; i++) count[(words[i] >>> shift) & 0xffff]++;
    if (count[(words[0] >>> shift) & 0xffff] === n) continue;
    let sum = 0;
    for (let d = 0; d < 65536; d++) {
      const c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = idx[i];
      tmp[count[(words[k] >>> shift) & 0xffff]++] = k;
    }
    const t = idx;
    idx = tmp;
    tmp = t;
  }
  return idx;
}

// Numeric approximations of integer bodies that never reverse the order of
// two values (each is one rounding of the exact value), decoded without
// bigints; ties are settled by the exact comparison.

function approxUint(buf: Buffer, off: number, len: number): number {
  if (len <= 6) return decodeUint(buf, off, len);
  const lo = buf[off] + buf[off + 1] * 0x100 + buf[off + 2] * 0x10000 + buf[off + 3] * 0x1000000;
  return decodeUint(buf, off + 4, len - 4) * 4294967296 + lo;
}

function approxInt(buf: Buffer, off: number, len: number): number {
  if (len <= 6) return decodeInt(buf, off, len);
  const u = approxUint(buf, off, len);
  return (buf[off] & 1) === 0 ? u / 2 : -(u - 1) / 2;
}

/** Rough bytes a value takes in a ZNG values frame. */
function frameBytes(v: Value): number {
  return (v.len > 0 ? v.len : 0) + 3;
}

/** Whether a key (its type and body, len -1 for null) is a float NaN. */
/**
 * The values of sorted[from, to) whose keys bound the stream, for its seek
 * index entry: its first and last (its last and first, descending), as
 * the reference's are, unless the stream holds float NaNs beside other
 * floats. A NaN equals every number, so sorting leaves the floats around
 * it out of order, and the first and last keys would name a range that
 * leaves some of the stream's keys out: a key-range scan by rows would
 * skip the stream and lose them, where a scan by columns (no seek index)
 * finds them. There the bounds are the least and the greatest key but the
 * NaNs (which no key range holds), in an order that is transitive once
 * they are left out. (Where other types or integers sit beside the NaNs
 * it is not, and least and greatest have no meaning: first and last then.)
 */
function streamBounds(
  sorted: readonly Value[],
  from: number,
  to: number,
  keys: KeyGetter,
  desc: boolean,
): [Value, Value] {
  const ends: [Value, Value] = desc
    ? [sorted[to - 1], sorted[from]]
    : [sorted[from], sorted[to - 1]];
  const scratch = new Value(sorted[from].type, sorted[from].buf, 0, 0);
  let nan = false;
  for (let j = from; j < to; j++) {
    const k = keys.get(sorted[j], scratch);
    if (k.len < 0) continue;
    const id = k.type.under.id;
    if (id < ID.Float16 || id > ID.Float64) return ends;
    if (!nan) nan = isNaNKey(k.type, k.buf, k.off, k.len);
  }
  if (!nan) return ends;
  // The keys (views of the values' bytes) and indexes of the bounds so
  // far; of keys that compare equal, the one nearer the end that first
  // and last would take.
  const loK = new Value(scratch.type, scratch.buf, 0, 0);
  const hiK = new Value(scratch.type, scratch.buf, 0, 0);
  let lo = -1;
  let hi = -1;
  for (let j = from; j < to; j++) {
    const k = keys.get(sorted[j], scratch);
    if (isNaNKey(k.type, k.buf, k.off, k.len)) continue;
    const cl = lo < 0 ? -1 : compare(k, loK, true);
    if (cl < 0 || (desc && cl === 0)) {
      lo = j;
      loK.set(k.type, k.buf, k.off, k.len);
    }
    const ch = hi < 0 ? 1 : compare(k, hiK, true);
    if (ch > 0 || (!desc && ch === 0)) {
      hi = j;
      hiK.set(k.type, k.buf, k.off, k.len);
    }
  }
  // Every key a NaN: no range holds one, so the ends will do.
  if (lo < 0) return ends;
  return [sorted[lo], sorted[hi]];
}

/**
 * Writes sorted values as one data object and its seek index, handing each
 * stream to cacher (when given) as it is written. The cache entries of an
 * object that fails are dropped.
 */
export async function writeObject(
  storage: ObjectStore,
  pool: PoolConfig,
  sorted: readonly Value[],
  keys: KeyGetter,
  metaCtx: TypeContext,
  id: Ksuid = Ksuid.generate(),
  cacher: StreamCacher | null = null,
): Promise<DataObject> {
  const object = `${pool.id}/${id}`;
  try {
    return await writeData(storage, pool, sorted, keys, metaCtx, id, cacher, object);
  } catch (e) {
    cacher?.drop(object);
    throw e;
  }
}

async function writeData(
  storage: ObjectStore,
  pool: PoolConfig,
  sorted: readonly Value[],
  keys: KeyGetter,
  metaCtx: TypeContext,
  id: Ksuid,
  cacher: StreamCacher | null,
  object: string,
): Promise<DataObject> {
  const out = await storage.create(dataKey(pool.id, id));
  const sink: ByteSink = { write: (chunk) => out.write(chunk), end: async () => undefined };
  const zw = newWriter(sink);
  const entries: SeekEntry[] = [];
  const desc = pool.layout.order === 'desc';
  const stride = pool.seekStride > 0 ? pool.seekStride : 1;
  const kscratch = new Value(sorted[0].type, sorted[0].buf, 0, 0);
  const keyOf = (v: Value): Value => {
    const k = keys.get(v, kscratch);
    const t = metaCtx.translate(k.type);
    return new Value(t, k.buf, k.off, k.len).copy();
  };
  try {
    const n = sorted.length;
    let i = 0;
    while (i < n) {
      const start = i;
      let bytes = 0;
      while (i < n && bytes < stride) bytes += frameBytes(sorted[i++]);
      const offset = zw.position;
      await zw.write(sorted.slice(start, i));
      await zw.endStream();
      cacher?.put(object, offset, zw.position - offset, sorted, start, i);
      const [lo, hi] = streamBounds(sorted, start, i, keys, desc);
      entries.push({
        min: keyOf(lo),
        max: keyOf(hi),
        valOff: start,
        valCnt: i - start,
        offset,
        length: zw.position - offset,
      });
    }
    await zw.close();
    // The object and its seek index go to storage together (one round
    // trip, not two, on S3); neither is reachable before a commit names it.
    const index = await encodeSeekIndex(entries, metaCtx);
    await Promise.all([out.commit(), storage.put(seekIndexKey(pool.id, id), index)]);
  } catch (e) {
    await out.abort();
    await storage.delete(seekIndexKey(pool.id, id)).catch(() => undefined);
    throw e;
  }
  // The object's bounds are its first and last keys, as the reference's
  // are (which differ from its streams' bounds only where keys are out of
  // order).
  const first = keyOf(sorted[0]);
  const last = keyOf(sorted[sorted.length - 1]);
  return new DataObject(id, desc ? last : first, desc ? first : last, sorted.length, zw.position);
}
