import { openLake, OpenOptions } from '../../src/backend/open';
// Test helpers: records from plain objects, a compact text form of values,
// readers over arrays, and temporary lakes.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ValueReader } from '../../src/formats/io';
import { isLakeError, Lake } from '../../src/lake';
import {
  Builder,
  decodeInt,
  decodeString,
  decodeUint,
  encodeInt,
  formatTime,
  Field,
  ID,
  recordFields,
  Type,
  TypeContext,
  TypeInt64,
  TypeNamed,
  TypeNull,
  TypeRecord,
  TypeString,
  TypeTime,
  TypeArray,
  Value,
  ZIter,
} from '../../src/zed';

/** A JS value for rec(): numbers are int64, bigints times, strings strings. */
export type Plain = number | bigint | string | null | { [k: string]: Plain };

function typeOf(ctx: TypeContext, v: Plain): Type {
  if (v === null) return TypeNull;
  if (typeof v === 'number') return TypeInt64;
  if (typeof v === 'bigint') return TypeTime;
  if (typeof v === 'string') return TypeString;
  const fields: Field[] = Object.entries(v).map(([name, x]) => ({ name, type: typeOf(ctx, x) }));
  return ctx.lookupTypeRecord(fields);
}

function append(b: Builder, v: Plain): void {
  if (v === null) b.appendNull();
  else if (typeof v === 'number' || typeof v === 'bigint') b.appendBytes(encodeInt(v));
  else if (typeof v === 'string') b.appendBytes(Buffer.from(v, 'utf8'));
  else {
    b.beginContainer();
    for (const x of Object.values(v)) append(b, x);
    b.endContainer();
  }
}

/** A Zed value from a plain object. */
export function rec(ctx: TypeContext, v: Plain): Value {
  const b = new Builder();
  append(b, v);
  const { buf, off, len } = b.body();
  return new Value(typeOf(ctx, v), Buffer.from(buf.subarray(off, off + len)), 0, len);
}

/** A compact ZSON-like text of a value (for assertions). */
export function show(v: Value): string {
  if (v.len < 0) return 'null';
  const t = v.type.under;
  if (t instanceof TypeArray) {
    const parts: string[] = [];
    const it = new ZIter(v.buf, v.off, v.off + v.len);
    while (!it.done()) {
      it.next();
      parts.push(show(new Value(t.type, v.buf, it.off, it.len)));
    }
    return `[${parts.join(',')}]`;
  }
  if (t instanceof TypeRecord) {
    const parts = recordFields(v).map((f, i) => `${t.fields[i].name}:${show(f)}`);
    return `{${parts.join(',')}}`;
  }
  switch (t.id) {
    case ID.Int64:
      return String(decodeInt(v.buf, v.off, v.len));
    case ID.Uint64:
    case ID.Uint8:
      return String(decodeUint(v.buf, v.off, v.len));
    case ID.Time:
      return formatTime(decodeInt(v.buf, v.off, v.len));
    case ID.String:
      return JSON.stringify(decodeString(v.buf, v.off, v.len));
    case ID.Bytes:
      return '0x' + v.buf.subarray(v.off, v.off + v.len).toString('hex');
    default:
      return `<${t.id}>`;
  }
}

/** The named field of a record value (a null value when absent). */
export function field(v: Value, name: string): Value {
  const t = v.type.under;
  if (!(t instanceof TypeRecord) || v.len < 0) return Value.null();
  const i = t.indexOf(name);
  return i < 0 ? Value.null() : recordFields(v)[i];
}

/** An integer field's value (NaN when null or absent). */
export function int(v: Value, name: string): number {
  const f = field(v, name);
  return f.len < 0 ? NaN : decodeInt(f.buf, f.off, f.len);
}

/** A string field's value ('' when null or absent). */
export function str(v: Value, name: string): string {
  const f = field(v, name);
  return f.len < 0 ? '' : decodeString(f.buf, f.off, f.len);
}

/** A reader over values in batches. */
export function arrayReader(vals: Value[], batch = 100): ValueReader {
  let pos = 0;
  return {
    async read() {
      if (pos >= vals.length) return null;
      const out = vals.slice(pos, pos + batch);
      pos += out.length;
      return out;
    },
  };
}

/** Records {k:n,...extra} for each n. */
export function recs(
  ctx: TypeContext,
  keys: (number | null)[],
  extra: (n: number | null, i: number) => Record<string, Plain> = () => ({}),
): Value[] {
  return keys.map((k, i) => rec(ctx, { k, ...extra(k, i) }));
}

/** Every value a scan of the branch yields, as text. */
export async function query(lake: Lake, pool: string, revision: string): Promise<string[]> {
  const ctx = new TypeContext();
  const scan = await lake.scan(pool, revision, { ctx });
  const out: string[] = [];
  for (let b = await scan.pull(); b; b = await scan.pull()) for (const v of b) out.push(show(v));
  return out;
}

/** A fresh lake in a temporary directory for each test of the file. */
export interface TestLake {
  dir: string;
  lake: Lake;
  ctx: TypeContext;
  /** Closes the lake and opens it again from its directory (with other options). */
  reopen(opts?: Omit<OpenOptions, 'lake'>): Promise<Lake>;
}

export function testLake(): TestLake {
  const t = {} as TestLake;
  beforeEach(async () => {
    t.dir = tmpDir();
    t.lake = await openLake(t.dir);
    t.ctx = new TypeContext();
  });
  afterEach(async () => {
    await t.lake.close();
    rmDir(t.dir);
  });
  t.reopen = async (opts = {}) => {
    await t.lake.close();
    t.lake = await openLake({ ...opts, lake: t.dir });
    return t.lake;
  };
  return t;
}

/** The LakeError an operation fails with, as {kind, message}. */
export async function failure(p: Promise<unknown>): Promise<{ kind: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (!isLakeError(e)) throw e;
    return { kind: e.kind, message: e.message };
  }
  throw new Error('expected a failure');
}

export function tmpDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'zlake-test-'));
}

export function rmDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The name of a value's named type. */
export function typeName(v: Value): string {
  return v.type instanceof TypeNamed ? v.type.name : '';
}
