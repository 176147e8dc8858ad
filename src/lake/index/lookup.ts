// Looking keys up in index objects. An index object's seek index says which
// of its streams may hold a key (its entries' min and max keys in the total
// order); only those streams are fetched and searched. Index objects never
// change, so seek indexes and fetched streams are cached (a byte budget
// for the streams), and repeated lookups cost no storage reads.

import { decodeZng } from '../../formats/zng';
import { isNotFound, ObjectStore } from '../../storage/storage';
import { compare } from '../../zed/compare';
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
  /** Bytes of index objects and their seek indexes read (from storage or the cache). */
  bytesRead: number;
}

/** Bytes of fetched index streams kept in memory. */
const STREAM_CACHE_BYTES = 64 * 1024 * 1024;

/** A least-recently-used map of buffers bounded by their total size. */
class BufferCache {
  private map = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private budget: number) {}

  get(key: string): Buffer | undefined {
    const b = this.map.get(key);
    if (b) {
      this.map.delete(key);
      this.map.set(key, b);
    }
    return b;
  }

  set(key: string, b: Buffer): void {
    if (b.length > this.budget) return;
    this.delete(key);
    this.map.set(key, b);
    this.bytes += b.length;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.budget) break;
      this.map.delete(k);
      this.bytes -= v.length;
    }
  }

  delete(key: string): void {
    const b = this.map.get(key);
    if (b) {
      this.map.delete(key);
      this.bytes -= b.length;
    }
  }

  /** Drops every entry whose key passes drop. */
  deleteWhere(drop: (key: string) => boolean): void {
    for (const k of [...this.map.keys()]) if (drop(k)) this.delete(k);
  }
}

export class IndexReader {
  /** Seek indexes by storage key; null for an index object that is gone. */
  private seeks = new LRU<string, SeekEntry[] | null>(16384);
  private streams = new BufferCache(STREAM_CACHE_BYTES);
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
   * total order). An empty list means no value of the object matches;
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
      if (compare(e.min, probe) > 0 || compare(e.max, probe) < 0) continue;
      const buf = await this.stream(key, e, stats);
      if (buf === null) return null;
      for (const rec of decodeZng(buf, { ctx: this.ctx })) {
        const [k, , seek] = recordFields(rec);
        const v = at(k, path);
        if (v === null || !test(v.type, v.buf, v.off, v.len)) continue;
        const [min, max] = recordFields(seek);
        out.push({
          first: decodeInt(min.buf, min.off, min.len),
          last: decodeInt(max.buf, max.off, max.len),
        });
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
    let entries = this.seeks.get(key);
    if (entries === undefined) {
      try {
        const buf = await this.storage.get(key);
        stats.bytesRead += buf.length;
        entries = decodeSeekIndex(buf, this.metaCtx);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        entries = null;
      }
      this.seeks.set(key, entries);
    }
    return entries;
  }

  private async stream(key: string, e: SeekEntry, stats: IndexStats): Promise<Buffer | null> {
    const ck = `${key}@${e.offset}`;
    let buf = this.streams.get(ck);
    if (!buf) {
      try {
        buf = await this.storage.getRange(key, e.offset, e.length);
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
      this.streams.set(ck, buf);
    }
    stats.bytesRead += buf.length;
    return buf;
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
