// Looking keys up in index objects. An index object's seek index says which
// of its streams may hold a key (its entries' min and max keys in index
// order); only those streams are fetched, decoded once into their sorted
// keys and rows, and binary-searched. Index objects never change, so seek
// indexes and decoded streams are cached (a byte budget for the streams),
// and repeated lookups cost no storage reads and no decoding.

import { decodeZng } from '../../formats/zng';
import { isNotFound, ObjectStore } from '../../storage/storage';
import { TypeContext } from '../../zed/context';
import { decodeInt } from '../../zed/primitive';
import { recordFields } from '../../zed/record';
import { Type, TypeRecord } from '../../zed/types';
import { Value } from '../../zed/value';
import { Ksuid } from '../ksuid';
import { LRU } from '../lru';
import { SeekEntry } from '../records';
import { decodeSeekIndex } from '../seekindex';
import { IndexObject, indexKey, indexSeekKey } from './object';
import { compareKeyValues } from './order';

/** A test of a key's type and bytes (the query layer's comparison with a constant). */
export type Predicate = (t: Type, buf: Buffer, off: number, len: number) => boolean;

/** Ordinals [first, last] of a data object's values, inclusive. */
export interface RowSpan {
  first: number;
  last: number;
}

/** What lookups cost. */
export interface IndexStats {
  /** Index objects consulted. */
  lookups: number;
  /** Bytes of index objects and their seek indexes read (stored bytes, from storage or the cache). */
  bytesRead: number;
}

/** Bytes of decoded index streams kept in memory. */
const STREAM_CACHE_BYTES = 64 * 1024 * 1024;

/** Memory a decoded key costs beside its bytes (the Value and array slots). */
const KEY_OVERHEAD = 80;

/** One stream of an index object, decoded: its keys in order and their rows. */
interface DecodedStream {
  keys: Value[];
  first: Float64Array;
  last: Float64Array;
  /** Its stored size (for the lookup's stats). */
  stored: number;
  /** Roughly the memory it holds. */
  size: number;
}

/** A least-recently-used map of decoded streams bounded by their total size. */
class StreamCache {
  private map = new Map<string, DecodedStream>();
  private bytes = 0;

  constructor(private budget: number) {}

  get(key: string): DecodedStream | undefined {
    const b = this.map.get(key);
    if (b) {
      this.map.delete(key);
      this.map.set(key, b);
    }
    return b;
  }

  set(key: string, b: DecodedStream): void {
    if (b.size > this.budget) return;
    this.delete(key);
    this.map.set(key, b);
    this.bytes += b.size;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.budget) break;
      this.map.delete(k);
      this.bytes -= v.size;
    }
  }

  delete(key: string): void {
    const b = this.map.get(key);
    if (b) {
      this.map.delete(key);
      this.bytes -= b.size;
    }
  }

  /** Drops every entry whose key passes drop. */
  deleteWhere(drop: (key: string) => boolean): void {
    for (const k of [...this.map.keys()]) if (drop(k)) this.delete(k);
  }
}

export class IndexReader {
  /** Seek indexes (and their stored size) by storage key; null for an index object that is gone. */
  private seeks = new LRU<string, { entries: SeekEntry[]; stored: number } | null>(16384);
  private streams = new StreamCache(STREAM_CACHE_BYTES);
  /** Context the index records are decoded in. */
  private ctx = new TypeContext();

  constructor(
    private storage: ObjectStore,
    /** The lake's metadata context (seek index keys are decoded into it). */
    private metaCtx: TypeContext,
  ) {}

  /**
   * The rows of the data object whose indexed key passes test, found by
   * looking probe up (test can only pass for keys equal to probe in the
   * index order). An empty list means no value of the object matches;
   * null means the index cannot tell (it is gone).
   */
  async lookup(
    pool: Ksuid,
    x: IndexObject,
    probe: Value,
    test: Predicate,
    stats: IndexStats,
  ): Promise<RowSpan[] | null> {
    stats.lookups++;
    const entries = await this.seekIndex(pool, x, stats);
    if (entries === null) return null;
    const key = indexKey(pool, x.rule.id, x.id);
    const path = x.rule.kind === 'field' ? x.rule.fields[0] : [];
    const out: RowSpan[] = [];
    for (const e of entries) {
      if (compareKeyValues(e.min, probe) > 0 || compareKeyValues(e.max, probe) < 0) continue;
      const s = await this.stream(key, e, path, stats);
      if (s === null) return null;
      // The first key not before probe, then every key equal to it.
      const keys = s.keys;
      let lo = 0;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareKeyValues(keys[mid], probe) < 0) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < keys.length && compareKeyValues(keys[i], probe) === 0; i++) {
        const v = keys[i];
        if (test(v.type, v.buf, v.off, v.len)) out.push({ first: s.first[i], last: s.last[i] });
      }
    }
    return out;
  }

  private async seekIndex(
    pool: Ksuid,
    x: IndexObject,
    stats: IndexStats,
  ): Promise<SeekEntry[] | null> {
    const key = indexSeekKey(pool, x.rule.id, x.id);
    let seek = this.seeks.get(key);
    if (seek === undefined) {
      try {
        const buf = await this.storage.get(key);
        seek = { entries: decodeSeekIndex(buf, this.metaCtx), stored: buf.length };
      } catch (e) {
        if (!isNotFound(e)) throw e;
        seek = null;
      }
      this.seeks.set(key, seek);
    }
    // Counted whether fetched or cached, as scans count data bytes.
    if (seek) stats.bytesRead += seek.stored;
    return seek ? seek.entries : null;
  }

  private async stream(
    key: string,
    e: SeekEntry,
    path: readonly string[],
    stats: IndexStats,
  ): Promise<DecodedStream | null> {
    const ck = `${key}@${e.offset}`;
    let s = this.streams.get(ck);
    if (!s) {
      let buf: Buffer;
      try {
        buf = await this.storage.getRange(key, e.offset, e.length);
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
      s = decodeStream(buf, path, this.ctx);
      this.streams.set(ck, s);
    }
    stats.bytesRead += s.stored;
    return s;
  }

  /** Forgets what is cached of the index objects of these data objects (deleted or vacuumed). */
  forgetObjects(pool: Ksuid | string, ids: readonly string[]): void {
    const gone = new Set(ids);
    const prefix = `${pool}/index/`;
    const drop = (k: string) => {
      if (!k.startsWith(prefix)) return false;
      const name = k.slice(k.lastIndexOf('/') + 1);
      return gone.has(name.slice(0, name.search(/[-.]/)));
    };
    this.seeks.deleteWhere(drop);
    this.streams.deleteWhere(drop);
  }

  /** Forgets a dropped pool's index objects. */
  forgetPool(pool: Ksuid): void {
    this.seeks.deletePrefix(`${pool}/`);
    this.streams.deleteWhere((k) => k.startsWith(`${pool}/`));
  }
}

/** Decodes an index stream's records into their keys (at path in `key`) and rows. */
function decodeStream(buf: Buffer, path: readonly string[], ctx: TypeContext): DecodedStream {
  const recs = decodeZng(buf, { ctx });
  const keys: Value[] = [];
  const first = new Float64Array(recs.length);
  const last = new Float64Array(recs.length);
  let size = 0;
  for (const rec of recs) {
    const [k, , seek] = recordFields(rec);
    const v = at(k, path);
    if (v === null) continue;
    const [min, max] = recordFields(seek);
    first[keys.length] = decodeInt(min.buf, min.off, min.len);
    last[keys.length] = decodeInt(max.buf, max.off, max.len);
    keys.push(v);
    size += Math.max(v.len, 0) + KEY_OVERHEAD;
  }
  // The values point into the decompressed frames, which they keep alive.
  return { keys, first, last, stored: buf.length, size: size + 2 * buf.length };
}

/** The value at path inside a record (the key record of a field index), or null. */
function at(v: Value, path: readonly string[]): Value | null {
  let cur = v;
  for (const name of path) {
    const t = cur.type.under;
    if (!(t instanceof TypeRecord) || cur.isNull) return null;
    const i = t.indexOf(name);
    if (i < 0) return null;
    cur = recordFields(cur)[i];
  }
  return cur;
}
