// Indexing (`a[i]`, `r["f"]`, `m[k]`) and slicing (`a[i:j]`) as the
// reference evaluates them: negative indexes count from the end, an index
// out of range is error("missing"), union elements come out untagged.

import { TypeContext } from '../../zed/context';
import { bytesEqual, decodeIntExact, decodeUintExact } from '../../zed/primitive';
import {
  ID,
  isInteger,
  isSigned,
  Type,
  TypeArray,
  TypeBytes,
  TypeMap,
  TypeRecord,
  TypeSet,
  TypeString,
  TypeUnion,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder, readUvarint, uv, ZIter } from '../../zed/zcode';
import { toInt } from './coerce';
import { isError, newError, wrapError } from './errors';
import { Expr } from './expr';
import { untag } from './path';

/** Points out at an element whose type is inner, untagging a (non-named) union. */
function deunion(inner: Type, buf: Buffer, off: number, len: number, out: Value): Value {
  out.set(inner, buf, off, len);
  if (inner instanceof TypeUnion && len >= 0) untag(inner, out, out);
  return out;
}

const unionKey = new Builder(64);

/** m[key] for a map value (error("missing") when absent). */
export function lookupMapKey(
  zctx: TypeContext,
  mt: TypeMap,
  m: Value,
  key: Value,
  out: Value,
): Value {
  if (m.len < 0) return zctx.missing();
  let kbuf = key.buf;
  let koff = key.off;
  let klen = key.len;
  if (key.type !== mt.keyType) {
    const u = mt.keyType.under;
    const tag = u instanceof TypeUnion ? u.tagOf(key.type) : -1;
    if (tag < 0) return zctx.missing();
    unionKey.reset();
    unionKey.beginContainer();
    unionKey.appendInt(tag);
    unionKey.append(key.buf, key.off, key.len);
    unionKey.endContainer();
    const body = unionKey.body();
    kbuf = body.buf;
    koff = body.off;
    klen = body.len;
  }
  const buf = m.buf;
  let p = m.off;
  const end = m.off + m.len;
  while (p < end) {
    const kt = readUvarint(buf, p, end);
    const ks = uv.end;
    const kl = kt - 1;
    p = ks + (kl > 0 ? kl : 0);
    const vt = readUvarint(buf, p, end);
    const vs = uv.end;
    const vl = vt - 1;
    p = vs + (vl > 0 ? vl : 0);
    if (kl === klen && (kl < 0 || bytesEqual(buf, ks, kl, kbuf, koff, klen))) {
      return deunion(mt.valType, buf, vs, vl, out);
    }
  }
  return zctx.missing();
}

/** `container[index]`. */
export class IndexExpr implements Expr {
  private readonly out = new Value(TypeString, Buffer.alloc(0), 0, -1);
  private readonly map = new Value(TypeString, Buffer.alloc(0), 0, -1);
  private readonly it = new ZIter();

  constructor(
    private readonly zctx: TypeContext,
    readonly container: Expr,
    readonly index: Expr,
  ) {}

  eval(self: Value): Value {
    const c = this.container.eval(self);
    const ct = c.type;
    const u = ct.under;
    // The container may be the output of a node that the index also
    // evaluates through, so keep its coordinates before evaluating the index.
    const cbuf = c.buf;
    const coff = c.off;
    const clen = c.len;
    const idx = this.index.eval(self);
    if (u instanceof TypeArray || u instanceof TypeSet)
      return this.vector(u.type, cbuf, coff, clen, idx);
    if (u instanceof TypeRecord) return this.record(u, cbuf, coff, clen, idx);
    if (u instanceof TypeMap)
      return lookupMapKey(this.zctx, u, this.map.set(ct, cbuf, coff, clen), idx, this.out);
    return this.zctx.missing();
  }

  private vector(inner: Type, buf: Buffer, off: number, len: number, idx: Value): Value {
    const id = idx.type.under.id;
    if (!isInteger(id)) return newError(this.zctx, 'array index is not an integer');
    let i = Number(
      isSigned(id)
        ? decodeIntExact(idx.buf, idx.off, idx.len)
        : decodeUintExact(idx.buf, idx.off, idx.len),
    );
    if (len < 0) return this.zctx.missing();
    const it = this.it;
    if (i < 0) {
      let n = 0;
      for (it.reset(buf, off, off + len); !it.done(); it.next()) n++;
      i += n;
      if (i < 0) return this.zctx.missing();
    }
    let k = 0;
    for (it.reset(buf, off, off + len); !it.done(); k++) {
      it.next();
      if (k === i) return deunion(inner, buf, it.off, it.len, this.out);
    }
    return this.zctx.missing();
  }

  private record(rt: TypeRecord, buf: Buffer, off: number, len: number, idx: Value): Value {
    if (idx.type.under.id !== ID.String) return newError(this.zctx, 'record index is not a string');
    const name = idx.len < 0 ? '' : idx.buf.toString('utf8', idx.off, idx.off + idx.len);
    const i = rt.indexOf(name);
    if (i < 0 || len < 0) return this.zctx.missing();
    const it = this.it.reset(buf, off, off + len);
    for (let k = 0; k <= i; k++) {
      if (it.done()) return this.zctx.missing();
      it.next();
    }
    return this.out.set(rt.fields[i].type, buf, it.off, it.len);
  }
}

/** Bytes of the first n UTF-8 characters of buf[off, end). */
function utf8Prefix(buf: Buffer, off: number, end: number, n: number): number {
  let i = off;
  for (let k = 0; k < n && i < end; k++) {
    const c = buf[i];
    const w = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    i = Math.min(i + w, end);
  }
  return i - off;
}

function runeCount(buf: Buffer, off: number, len: number): number {
  let n = 0;
  for (let i = off; i < off + len; i++) if ((buf[i] & 0xc0) !== 0x80) n++;
  return n;
}

const ERR_SLICE_INDEX = 'slice index is not a number';

/** `elem[from:to]` over arrays, strings (by character) and bytes. */
export class SliceExpr implements Expr {
  private readonly out = new Value(TypeString, Buffer.alloc(0), 0, -1);
  private readonly it = new ZIter();

  constructor(
    private readonly zctx: TypeContext,
    readonly elem: Expr,
    readonly from: Expr | null,
    readonly to: Expr | null,
  ) {}

  eval(self: Value): Value {
    const v = this.elem.eval(self);
    if (isError(v)) return v;
    const t = v.type;
    const u = t.under;
    const buf = v.buf;
    const off = v.off;
    const len = v.len;
    let length: number;
    if (u === TypeBytes) length = Math.max(len, 0);
    else if (u === TypeString) length = len < 0 ? 0 : runeCount(buf, off, len);
    else if (u instanceof TypeArray) {
      length = 0;
      if (len > 0)
        for (this.it.reset(buf, off, off + len); !this.it.done(); this.it.next()) length++;
    } else return wrapError(this.zctx, 'sliced value is not array, bytes, or string', v);
    if (len < 0) return this.out.set(t, buf, off, len);
    let from = 0;
    if (this.from !== null) {
      const f = this.index(this.from, self, length);
      if (f === undefined) return newError(this.zctx, ERR_SLICE_INDEX);
      from = f;
    }
    let to = length;
    if (this.to !== null) {
      const x = this.index(this.to, self, length);
      if (x === undefined) return newError(this.zctx, ERR_SLICE_INDEX);
      to = x;
    }
    if (u === TypeBytes) {
      if (from > to) return newError(this.zctx, `slice bounds out of range [${from}:${to}]`);
      return this.out.set(t, buf, off + from, to - from);
    }
    if (u === TypeString) {
      const s = utf8Prefix(buf, off, off + len, from);
      const n = to - from < 0 ? 0 : utf8Prefix(buf, off + s, off + len, to - from);
      return this.out.set(t, buf, off + s, n);
    }
    // Array: the elements from..to (nothing when from >= to).
    const it = this.it.reset(buf, off, off + len);
    let start = off;
    let end = off;
    for (let k = 0; k < to && !it.done(); k++) {
      if (k === from) start = it.pos;
      it.next();
      end = it.pos;
    }
    // As the reference: with from >= to the slice is the first `to` elements.
    return this.out.set(t, buf, start, end - start);
  }

  private index(e: Expr, self: Value, length: number): number | undefined {
    const v = e.eval(self);
    const i = toInt(v);
    if (i === undefined) return undefined;
    let n = Number(i);
    if (n < 0) n += length;
    if (n < 0) return 0;
    return n > length ? length : n;
  }
}
