// Index objects: the index a rule made of one data object. Like data
// objects they are immutable objects in the store, written before a commit
// names them (any build writes the same bytes there) and removed only by
// vacuum (with their data object) or a pool's drop:
//
//   <pool-id>/index/<rule-id>/<object-id>.zng        the index
//   <pool-id>/index/<rule-id>/<object-id>-seek.zng   its seek index
//
// A commit records one as `commits.AddIndex` holding an `index.Object`
// ({rule, id}: the whole rule and the data object's ID), as the
// reference does, and `from pool@branch:indexes` lists them.

import { decodeIntBig } from '../../zed/primitive';
import { Type, TypeArray, TypeNamed, TypeString, TypeTime } from '../../zed/types';
import { Value } from '../../zed/value';
import { readUvarint, uv } from '../../zed/zcode';
import { Ksuid } from '../ksuid';
import {
  CorruptMetadataError,
  fieldsOf,
  ksuidOf,
  MetaTypes,
  RecordBuilder,
  str,
  typeName,
} from '../records';
import { IndexRule } from './rules';

export class IndexObject {
  constructor(
    readonly rule: IndexRule,
    /** The data object indexed. */
    readonly id: Ksuid,
  ) {}

  /** The reference's name of an index object: "<rule-id>/<object-id>". */
  toString(): string {
    return `${this.rule.id}/${this.id}`;
  }
}

/** Storage key prefix of a pool's index objects. */
export function indexPrefix(poolId: Ksuid): string {
  return `${poolId}/index/`;
}

/** Storage key of an index object. */
export function indexKey(poolId: Ksuid, rule: Ksuid, id: Ksuid): string {
  return `${poolId}/index/${rule}/${id}.zng`;
}

/** Storage key of an index object's seek index. */
export function indexSeekKey(poolId: Ksuid, rule: Ksuid, id: Ksuid): string {
  return `${poolId}/index/${rule}/${id}-seek.zng`;
}

// ---- records ----

/** The record type of a rule: index.FieldRule, index.TypeRule or index.AggRule. */
export function ruleType(mt: MetaTypes, kind: IndexRule['kind']): TypeNamed {
  const base: [string, Type][] = [
    ['ts', TypeTime],
    ['id', mt.ksuid],
    ['name', TypeString],
  ];
  switch (kind) {
    case 'field':
      return mt.namedRecord('index.FieldRule', [...base, ['fields', mt.fieldList]]);
    case 'type':
      return mt.namedRecord('index.TypeRule', [...base, ['type', TypeString]]);
    case 'agg':
      return mt.namedRecord('index.AggRule', [...base, ['script', TypeString]]);
  }
}

function appendRule(rb: RecordBuilder, r: IndexRule): void {
  rb.int(r.ts).ksuid(r.id).string(r.name);
  switch (r.kind) {
    case 'field':
      rb.open();
      for (const path of r.fields) {
        rb.open();
        for (const f of path) rb.string(f);
        rb.close();
      }
      rb.close();
      break;
    case 'type':
      rb.string(r.type);
      break;
    case 'agg':
      rb.string(r.script);
      break;
  }
}

/** A rule's record (`from :index_rules`). */
export function ruleRecord(mt: MetaTypes, rb: RecordBuilder, r: IndexRule): Value {
  rb.begin();
  appendRule(rb, r);
  return rb.end(ruleType(mt, r.kind));
}

export function indexObjectType(mt: MetaTypes, kind: IndexRule['kind']): TypeNamed {
  return mt.namedRecord('index.Object', [
    ['rule', ruleType(mt, kind)],
    ['id', mt.ksuid],
  ]);
}

function appendIndexObject(rb: RecordBuilder, o: IndexObject): void {
  rb.open();
  appendRule(rb, o.rule);
  rb.close().ksuid(o.id);
}

/** An index.Object record (`from pool@branch:indexes`). */
export function indexObjectRecord(mt: MetaTypes, rb: RecordBuilder, o: IndexObject): Value {
  rb.begin();
  appendIndexObject(rb, o);
  return rb.end(indexObjectType(mt, o.rule.kind));
}

/**
 * A record holding a commit ID and an index object: commits.AddIndex (an
 * action) or commits.SnapshotIndex (in a commit's embedded snapshot).
 */
export function indexActionRecord(
  mt: MetaTypes,
  rb: RecordBuilder,
  name: 'commits.AddIndex' | 'commits.SnapshotIndex',
  commit: Ksuid,
  o: IndexObject,
): Value {
  rb.begin().ksuid(commit).open();
  appendIndexObject(rb, o);
  rb.close();
  const t = mt.namedRecord(name, [
    ['commit', mt.ksuid],
    ['object', indexObjectType(mt, o.rule.kind)],
  ]);
  return rb.end(t);
}

/** A commits.DeleteIndex record. */
export function deleteIndexRecord(
  mt: MetaTypes,
  rb: RecordBuilder,
  commit: Ksuid,
  rule: Ksuid,
  id: Ksuid,
): Value {
  const t = mt.namedRecord('commits.DeleteIndex', [
    ['commit', mt.ksuid],
    ['id', mt.ksuid],
    ['rule_id', mt.ksuid],
  ]);
  return rb.begin().ksuid(commit).ksuid(id).ksuid(rule).end(t);
}

// ---- reading them back ----

function timeOf(v: Value): bigint {
  return v.isNull ? 0n : decodeIntBig(v.buf, v.off, v.len);
}

function pathsOf(v: Value): string[][] {
  if (v.isNull) return [];
  const out: string[][] = [];
  for (const p of elements(v)) out.push(elements(p).map(str));
  return out;
}

/** The elements of an array value. */
function elements(v: Value): Value[] {
  const t = v.type.under;
  if (!(t instanceof TypeArray) || v.isNull) throw new CorruptMetadataError('expected an array');
  const out: Value[] = [];
  let off = v.off;
  const end = v.off + v.len;
  while (off < end) {
    const tag = readUvarint(v.buf, off, end);
    if (tag < 0) throw new CorruptMetadataError('bad array');
    off = uv.end;
    const len = tag - 1;
    out.push(new Value(t.type, v.buf, off, len));
    if (len > 0) off += len;
  }
  return out;
}

export function readRule(v: Value): IndexRule {
  const name = typeName(v);
  const kind =
    name === 'index.FieldRule'
      ? 'field'
      : name === 'index.TypeRule'
        ? 'type'
        : name === 'index.AggRule'
          ? 'agg'
          : null;
  if (kind === null)
    throw new CorruptMetadataError(`expected an index rule, got ${name || 'record'}`);
  const [ts, id, rname, x] = fieldsOf(v, name, 4);
  const base = { ts: timeOf(ts), id: ksuidOf(id), name: str(rname) };
  switch (kind) {
    case 'field':
      return { kind, ...base, fields: pathsOf(x) };
    case 'type':
      return { kind, ...base, type: str(x) };
    case 'agg':
      return { kind, ...base, script: str(x) };
  }
}

export function readIndexObject(v: Value): IndexObject {
  const [rule, id] = fieldsOf(v, 'index.Object', 2);
  return new IndexObject(readRule(rule), ksuidOf(id));
}

/** A commits.AddIndex or commits.SnapshotIndex record's index object. */
export function readIndexAction(v: Value, name: string): IndexObject {
  const [, object] = fieldsOf(v, name, 2);
  return readIndexObject(object);
}

export function readDeleteIndex(v: Value): { rule: Ksuid; id: Ksuid } {
  const [, id, rule] = fieldsOf(v, 'commits.DeleteIndex', 3);
  return { rule: ksuidOf(rule), id: ksuidOf(id) };
}
