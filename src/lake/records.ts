// The lake's metadata as Zed records: commit objects, seek indexes and the
// meta-query sources are all Zed data, with the reference's field names and
// named types (pools.Config, branches.Config, lake.BranchMeta,
// lake.BranchTip, data.Object, commits.Add, ...), so `from :pools` and
// friends print exactly what the reference prints.

import { TypeContext } from '../zed/context';
import { encodeInt, encodeUint } from '../zed/make';
import { decodeInt, decodeIntBig, decodeString, decodeUint } from '../zed/primitive';
import { recordFields } from '../zed/record';
import {
  compareTypes,
  Field,
  Type,
  TypeBytes,
  TypeInt64,
  TypeNamed,
  TypeRecord,
  TypeString,
  TypeTime,
  TypeUint64,
  TypeUint8,
  TypeUnion,
} from '../zed/types';
import { Value } from '../zed/value';
import { Builder } from '../zed/zcode';
import { BranchConfig, PoolConfig } from './config';
import { Ksuid } from './ksuid';
import { DataObject } from './object';

/** Field specs: a name and a type. */
type Spec = [string, Type][];

/**
 * Named and record types of the metadata in one type context, made on
 * first use and kept.
 */
export class MetaTypes {
  private named = new Map<string, TypeNamed>();
  readonly ksuid: TypeNamed;
  readonly ksuidSimple: TypeNamed;
  readonly sortKey: TypeNamed;
  readonly pool: TypeNamed;
  readonly branch: TypeNamed;
  readonly branchMeta: TypeNamed;
  readonly branchTip: TypeNamed;
  readonly del: TypeNamed;
  readonly addVector: TypeNamed;
  readonly delVector: TypeNamed;
  readonly snapshotVector: TypeNamed;
  readonly snapshotHeader: TypeNamed;
  readonly mergeSource: TypeNamed;
  /** field.List: a list of field paths (pool keys, field index rules). */
  readonly fieldList: TypeNamed;

  constructor(readonly ctx: TypeContext) {
    this.ksuid = this.name('ksuid.KSUID', TypeBytes);
    this.ksuidSimple = this.name('KSUID', TypeBytes);
    const path = this.name('field.Path', ctx.lookupTypeArray(TypeString));
    const list = this.name('field.List', ctx.lookupTypeArray(path));
    this.fieldList = list;
    const which = this.name('order.Which', TypeString);
    this.sortKey = this.rec('order.SortKey', [
      ['order', which],
      ['keys', list],
    ]);
    this.pool = this.rec('pools.Config', [
      ['ts', TypeTime],
      ['name', TypeString],
      ['id', this.ksuid],
      ['layout', this.sortKey],
      ['seek_stride', TypeInt64],
      ['threshold', TypeInt64],
    ]);
    this.branch = this.rec('branches.Config', [
      ['ts', TypeTime],
      ['name', TypeString],
      ['commit', this.ksuid],
    ]);
    this.branchMeta = this.rec('lake.BranchMeta', [
      ['pool', this.pool],
      ['branch', this.branch],
    ]);
    this.branchTip = this.rec('lake.BranchTip', [
      ['Name', TypeString],
      ['Commit', this.ksuid],
    ]);
    this.del = this.rec('commits.Delete', [
      ['commit', this.ksuid],
      ['id', this.ksuid],
    ]);
    this.addVector = this.rec('commits.AddVector', [
      ['commit', this.ksuid],
      ['id', this.ksuid],
    ]);
    this.delVector = this.rec('commits.DeleteVector', [
      ['commit', this.ksuid],
      ['id', this.ksuid],
    ]);
    // zlake's own: an object with a columnar copy, in an embedded snapshot.
    this.snapshotVector = this.rec('commits.SnapshotVector', [
      ['commit', this.ksuid],
      ['id', this.ksuid],
    ]);
    this.mergeSource = this.rec('commits.MergeSource', [
      ['commit', this.ksuid],
      ['source', this.ksuid],
    ]);
    this.snapshotHeader = this.rec('commits.Snapshot', [
      ['commit', this.ksuid],
      ['count', TypeUint64],
    ]);
  }

  private name(name: string, inner: Type): TypeNamed {
    const key = name + '\0' + inner.id;
    let t = this.named.get(key);
    if (!t) {
      t = this.ctx.lookupTypeNamed(name, inner);
      this.named.set(key, t);
    }
    return t;
  }

  private rec(name: string, spec: Spec): TypeNamed {
    const fields: Field[] = spec.map(([n, type]) => ({ name: n, type }));
    return this.name(name, this.ctx.lookupTypeRecord(fields));
  }

  /** A named record type of this context (made once, then reused). */
  namedRecord(name: string, spec: [string, Type][]): TypeNamed {
    return this.rec(name, spec);
  }

  /** data.Object for objects whose key range has these types. */
  dataObject(minType: Type, maxType: Type): TypeNamed {
    return this.rec('data.Object', [
      ['id', this.ksuid],
      ['min', minType],
      ['max', maxType],
      ['count', TypeUint64],
      ['size', TypeInt64],
    ]);
  }

  /** meta.Partition: a key span and the objects in it (`:partitions`). */
  partition(minType: Type, maxType: Type, objects: Type): TypeNamed {
    return this.rec('meta.Partition', [
      ['min', minType],
      ['max', maxType],
      ['objects', this.ctx.lookupTypeArray(objects)],
    ]);
  }

  /** commits.Add holding an object of type objType. */
  add(objType: Type): TypeNamed {
    return this.rec('commits.Add', [
      ['commit', this.ksuid],
      ['object', objType],
    ]);
  }

  /** The snapshot entries a commit object may carry. */
  snapshotObject(objType: Type): TypeNamed {
    return this.rec('commits.SnapshotObject', [
      ['commit', this.ksuid],
      ['object', objType],
    ]);
  }

  /**
   * The commit record: named commits.Commit inside commit objects and
   * Commit (the reference's simple style) in `:log` output.
   */
  commit(metaType: Type, simple: boolean): TypeNamed {
    const id = simple ? this.ksuidSimple : this.ksuid;
    return this.rec(simple ? 'Commit' : 'commits.Commit', [
      ['id', id],
      ['parent', id],
      ['retries', TypeUint8],
      ['author', TypeString],
      ['date', TypeTime],
      ['message', TypeString],
      ['meta', metaType],
    ]);
  }

  /** A seek index entry (unnamed, as the reference writes it). */
  seekEntry(minType: Type, maxType: Type): TypeRecord {
    return this.ctx.lookupTypeRecord([
      { name: 'min', type: minType },
      { name: 'max', type: maxType },
      { name: 'val_off', type: TypeUint64 },
      { name: 'val_cnt', type: TypeUint64 },
      { name: 'offset', type: TypeUint64 },
      { name: 'length', type: TypeUint64 },
    ]);
  }

  /** v's type as a type of this context. */
  local(t: Type): Type {
    return this.ctx.translate(t);
  }
}

const meta = new WeakMap<TypeContext, MetaTypes>();

/** The metadata types of ctx (one set per context). */
export function metaTypes(ctx: TypeContext): MetaTypes {
  let m = meta.get(ctx);
  if (!m) {
    m = new MetaTypes(ctx);
    meta.set(ctx, m);
  }
  return m;
}

// ---- building records ----

/** Builds record values field by field into a reusable Builder. */
export class RecordBuilder {
  readonly b = new Builder(1024);

  begin(): this {
    this.b.reset();
    this.b.beginContainer();
    return this;
  }

  /** Ends the top-level record and returns it as a value with its own bytes. */
  end(type: Type): Value {
    this.b.endContainer();
    const { buf, off, len } = this.b.body();
    return Value.fromBytes(type, Buffer.from(buf.subarray(off, off + len)));
  }

  open(): this {
    this.b.beginContainer();
    return this;
  }

  close(): this {
    this.b.endContainer();
    return this;
  }

  bytes(b: Uint8Array | null): this {
    this.b.appendBytes(b);
    return this;
  }

  string(s: string): this {
    return this.bytes(Buffer.from(s, 'utf8'));
  }

  int(v: number | bigint): this {
    return this.bytes(encodeInt(v));
  }

  uint(v: number | bigint): this {
    return this.bytes(encodeUint(v));
  }

  /** A union value's tag (the value follows). */
  tag(t: number): this {
    this.b.appendInt(t);
    return this;
  }

  ksuid(id: Ksuid): this {
    return this.bytes(id.bytes);
  }

  value(v: Value): this {
    this.b.append(v.buf, v.off, v.len);
    return this;
  }
}

export function appendSortKey(rb: RecordBuilder, p: PoolConfig): void {
  rb.open().string(p.layout.order).open();
  for (const key of p.layout.keys) {
    rb.open();
    for (const f of key) rb.string(f);
    rb.close();
  }
  rb.close().close();
}

export function appendPool(rb: RecordBuilder, p: PoolConfig): void {
  rb.int(p.ts).string(p.name).ksuid(p.id);
  appendSortKey(rb, p);
  rb.int(p.seekStride).int(p.threshold);
}

export function appendBranch(rb: RecordBuilder, b: BranchConfig): void {
  rb.int(b.ts).string(b.name).ksuid(b.commit);
}

/** A pools.Config record (`from :pools`). */
export function poolRecord(mt: MetaTypes, rb: RecordBuilder, p: PoolConfig): Value {
  rb.begin();
  appendPool(rb, p);
  return rb.end(mt.pool);
}

/** A branches.Config record. */
export function branchRecord(mt: MetaTypes, rb: RecordBuilder, b: BranchConfig): Value {
  rb.begin();
  appendBranch(rb, b);
  return rb.end(mt.branch);
}

/** A lake.BranchMeta record (`from pool:branches`). */
export function branchMetaRecord(
  mt: MetaTypes,
  rb: RecordBuilder,
  p: PoolConfig,
  b: BranchConfig,
): Value {
  rb.begin().open();
  appendPool(rb, p);
  rb.close().open();
  appendBranch(rb, b);
  rb.close();
  return rb.end(mt.branchMeta);
}

/** A lake.BranchTip record (the head of `from pool@branch:log`). */
export function branchTipRecord(mt: MetaTypes, rb: RecordBuilder, b: BranchConfig): Value {
  return rb.begin().string(b.name).ksuid(b.commit).end(mt.branchTip);
}

function objectType(mt: MetaTypes, o: DataObject): TypeNamed {
  return mt.dataObject(mt.local(o.min.type), mt.local(o.max.type));
}

function appendObject(rb: RecordBuilder, o: DataObject): void {
  rb.ksuid(o.id).value(o.min).value(o.max).uint(o.count).int(o.size);
}

/** A data.Object record (`from pool@branch:objects`). */
export function objectRecord(mt: MetaTypes, rb: RecordBuilder, o: DataObject): Value {
  rb.begin();
  appendObject(rb, o);
  return rb.end(objectType(mt, o));
}

/**
 * A meta.Partition record: the span [min, max] and its objects (their
 * element type a union when their key types differ).
 */
export function partitionRecord(
  mt: MetaTypes,
  rb: RecordBuilder,
  min: Value,
  max: Value,
  objects: DataObject[],
): Value {
  const types = objects.map((o) => objectType(mt, o));
  const distinct = [...new Set(types)];
  const elem =
    distinct.length === 1 ? distinct[0] : mt.ctx.lookupTypeUnion(distinct.sort(compareTypes));
  rb.begin().value(min).value(max).open();
  objects.forEach((o, i) => {
    if (elem instanceof TypeUnion) rb.open().tag(elem.tagOf(types[i]));
    rb.open();
    appendObject(rb, o);
    rb.close();
    if (elem instanceof TypeUnion) rb.close();
  });
  rb.close();
  return rb.end(mt.partition(mt.local(min.type), mt.local(max.type), elem));
}

/** A commits.Add record. */
export function addRecord(mt: MetaTypes, rb: RecordBuilder, commit: Ksuid, o: DataObject): Value {
  rb.begin().ksuid(commit).open();
  appendObject(rb, o);
  rb.close();
  return rb.end(mt.add(objectType(mt, o)));
}

/** A commits.SnapshotObject record. */
export function snapshotObjectRecord(
  mt: MetaTypes,
  rb: RecordBuilder,
  commit: Ksuid,
  o: DataObject,
): Value {
  rb.begin().ksuid(commit).open();
  appendObject(rb, o);
  rb.close();
  return rb.end(mt.snapshotObject(objectType(mt, o)));
}

/** A commits.Delete record. */
export function deleteRecord(mt: MetaTypes, rb: RecordBuilder, commit: Ksuid, id: Ksuid): Value {
  return idRecord(rb, mt.del, commit, id);
}

/** A {commit, id} record of one of the ID-only kinds (commits.AddVector...). */
export function idRecord(rb: RecordBuilder, type: TypeNamed, commit: Ksuid, id: Ksuid): Value {
  return rb.begin().ksuid(commit).ksuid(id).end(type);
}

export interface CommitInfo {
  id: Ksuid;
  parent: Ksuid;
  retries: number;
  author: string;
  /** ns since the epoch. */
  date: bigint;
  message: string;
  /** Application metadata; a null value when none was given. */
  meta: Value;
}

/** A Commit record: commits.Commit in commit objects, Commit in `:log`. */
export function commitRecord(
  mt: MetaTypes,
  rb: RecordBuilder,
  c: CommitInfo,
  simple: boolean,
): Value {
  rb.begin()
    .ksuid(c.id)
    .ksuid(c.parent)
    .uint(c.retries)
    .string(c.author)
    .int(c.date)
    .string(c.message);
  rb.value(c.meta);
  return rb.end(mt.commit(mt.local(c.meta.type), simple));
}

// ---- reading records back ----

export class CorruptMetadataError extends Error {}

export function fieldsOf(v: Value, name: string, n: number): Value[] {
  const t = v.type;
  if (!(t instanceof TypeNamed) || t.name !== name || !(t.type instanceof TypeRecord) || v.isNull) {
    throw new CorruptMetadataError(`expected a ${name} record`);
  }
  const f = recordFields(v);
  if (f.length !== n) throw new CorruptMetadataError(`bad ${name} record`);
  return f;
}

export function str(v: Value): string {
  return v.isNull ? '' : decodeString(v.buf, v.off, v.len);
}

export function ksuidOf(v: Value): Ksuid {
  if (v.len !== 20) throw new CorruptMetadataError('bad KSUID');
  return Ksuid.fromBytes(v.buf.subarray(v.off, v.off + 20));
}

function uintOf(v: Value): number {
  return v.isNull ? 0 : decodeUint(v.buf, v.off, v.len);
}

function intOf(v: Value): number {
  return v.isNull ? 0 : decodeInt(v.buf, v.off, v.len);
}

/** The name of a value's named type ('' when unnamed). */
export function typeName(v: Value): string {
  return v.type instanceof TypeNamed ? v.type.name : '';
}

export function readObject(v: Value): DataObject {
  const [id, min, max, count, size] = fieldsOf(v, 'data.Object', 5);
  return new DataObject(ksuidOf(id), min.copy(), max.copy(), uintOf(count), intOf(size));
}

/** A commits.Add or commits.SnapshotObject record's object. */
export function readAddLike(v: Value, name: string): { commit: Ksuid; object: DataObject } {
  const [commit, object] = fieldsOf(v, name, 2);
  return { commit: ksuidOf(commit), object: readObject(object) };
}

export function readDelete(v: Value): { commit: Ksuid; id: Ksuid } {
  return readIdRecord(v, 'commits.Delete');
}

/** A {commit, id} record named name (commits.AddVector...). */
export function readIdRecord(v: Value, name: string): { commit: Ksuid; id: Ksuid } {
  const [commit, id] = fieldsOf(v, name, 2);
  return { commit: ksuidOf(commit), id: ksuidOf(id) };
}

export function readMergeSource(v: Value): { commit: Ksuid; source: Ksuid } {
  const [commit, source] = fieldsOf(v, 'commits.MergeSource', 2);
  return { commit: ksuidOf(commit), source: ksuidOf(source) };
}

export function readSnapshotHeader(v: Value): { commit: Ksuid; count: number } {
  const [commit, count] = fieldsOf(v, 'commits.Snapshot', 2);
  return { commit: ksuidOf(commit), count: uintOf(count) };
}

export function readCommit(v: Value): CommitInfo {
  const [id, parent, retries, author, date, message, metaVal] = fieldsOf(v, 'commits.Commit', 7);
  return {
    id: ksuidOf(id),
    parent: ksuidOf(parent),
    retries: uintOf(retries),
    author: str(author),
    date: date.isNull ? 0n : decodeIntBig(date.buf, date.off, date.len),
    message: str(message),
    meta: metaVal.copy(),
  };
}

export interface SeekEntry {
  min: Value;
  max: Value;
  valOff: number;
  valCnt: number;
  offset: number;
  length: number;
}

export function seekEntryRecord(mt: MetaTypes, rb: RecordBuilder, e: SeekEntry): Value {
  rb.begin().value(e.min).value(e.max).uint(e.valOff).uint(e.valCnt).uint(e.offset).uint(e.length);
  return rb.end(mt.seekEntry(mt.local(e.min.type), mt.local(e.max.type)));
}

export function readSeekEntry(v: Value): SeekEntry {
  const t = v.type.under;
  if (
    !(t instanceof TypeRecord) ||
    t.fields.length !== 6 ||
    t.fields[2].name !== 'val_off' ||
    v.isNull
  ) {
    throw new CorruptMetadataError('bad seek index entry');
  }
  const [min, max, valOff, valCnt, offset, length] = recordFields(v);
  return {
    min: min.copy(),
    max: max.copy(),
    valOff: uintOf(valOff),
    valCnt: uintOf(valCnt),
    offset: uintOf(offset),
    length: uintOf(length),
  };
}
