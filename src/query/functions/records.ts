// Functions on record structure: fields, flatten, unflatten and
// nest_dotted.

import { DuplicateFieldError, TypeContext } from '../../zed/context';
import { decodeInt, decodeString } from '../../zed/primitive';
import {
  compareTypes,
  ID,
  Type,
  TypeArray,
  TypeRecord,
  TypeString,
  TypeType,
  TypeUnion,
} from '../../zed/types';
import { formatType } from '../../zed/typestring';
import { Value } from '../../zed/value';
import { Builder, readUvarint, uv } from '../../zed/zcode';
import { wrapError } from '../expr/errors';
import { RecordBuilder, RecordBuilderError } from '../expr/recordbuilder';
import { Scratch } from '../expr/scratch';
import { registerFunction, valueFunction } from './registry';

/** Appends the path of every leaf field of t (nested records descended) as a [string]. */
function appendPaths(t: TypeRecord, b: Builder, prefix: string[]): void {
  for (const f of t.fields) {
    const u = f.type.under;
    if (u instanceof TypeRecord) {
      prefix.push(f.name);
      appendPaths(u, b, prefix);
      prefix.pop();
      continue;
    }
    b.beginContainer();
    for (const s of prefix) b.appendBytes(Buffer.from(s, 'utf8'));
    b.appendBytes(Buffer.from(f.name, 'utf8'));
    b.endContainer();
  }
}

registerFunction(
  'fields',
  valueFunction(1, 1, ({ zctx }) => {
    const type = zctx.lookupTypeArray(zctx.lookupTypeArray(TypeString));
    // The result depends on the record type only.
    const cache = new Map<Type, Value>();
    return ([v]) => {
      let rt: Type | undefined = v.type.under;
      if (rt === TypeType) {
        try {
          rt = zctx.lookupByValue(v.buf, v.off, Math.max(v.len, 0)).under;
        } catch {
          rt = undefined;
        }
      }
      if (!(rt instanceof TypeRecord)) return zctx.missing();
      let r = cache.get(rt);
      if (r === undefined) {
        const b = new Builder(64);
        appendPaths(rt, b, []);
        // No fields build nothing, which the reference returns as null.
        r = b.len === 0 ? Value.null(type) : Value.fromBytes(type, b.copy());
        cache.set(rt, r);
      }
      return r;
    };
  }),
);

/** flatten: a record to an array of {key:[string],value:<leaf>} entries. */
class Flattener {
  private readonly keyType: Type;
  private readonly entryTypes = new Map<Type, TypeRecord>();
  private readonly b = new Builder(256);
  private readonly out = new Scratch();
  private types: Type[] = [];
  private readonly path: string[] = [];

  constructor(private readonly zctx: TypeContext) {
    this.keyType = zctx.lookupTypeArray(TypeString);
  }

  private entryType(t: Type): TypeRecord {
    let e = this.entryTypes.get(t);
    if (e === undefined) {
      e = this.zctx.lookupTypeRecord([
        { name: 'key', type: this.keyType },
        { name: 'value', type: t },
      ]);
      this.entryTypes.set(t, e);
    }
    return e;
  }

  private collect(t: TypeRecord, buf: Buffer, off: number, len: number): void {
    const end = off + Math.max(len, 0);
    let p = off;
    for (const f of t.fields) {
      // A null record's fields all read as null.
      let foff = p;
      let flen = -1;
      if (p < end) {
        const tag = readUvarint(buf, p, end);
        foff = uv.end;
        flen = tag - 1;
        p = foff + (flen > 0 ? flen : 0);
      }
      const rt = f.type.under;
      if (rt instanceof TypeRecord && flen >= 0) {
        this.collect(rt, buf, foff, flen);
        continue;
      }
      this.types.push(this.entryType(f.type));
    }
  }

  private encode(t: TypeRecord, inner: Type, buf: Buffer, off: number, len: number): void {
    const b = this.b;
    const end = off + Math.max(len, 0);
    let p = off;
    for (const f of t.fields) {
      let foff = p;
      let flen = -1;
      if (p < end) {
        const tag = readUvarint(buf, p, end);
        foff = uv.end;
        flen = tag - 1;
        p = foff + (flen > 0 ? flen : 0);
      }
      this.path.push(f.name);
      const rt = f.type.under;
      if (rt instanceof TypeRecord && flen >= 0) {
        this.encode(rt, inner, buf, foff, flen);
      } else {
        const union = inner instanceof TypeUnion ? inner : null;
        if (union !== null) {
          b.beginContainer();
          b.appendInt(union.tagOf(this.entryType(f.type)));
        }
        b.beginContainer();
        b.beginContainer();
        for (const s of this.path) b.appendBytes(Buffer.from(s, 'utf8'));
        b.endContainer();
        b.append(buf, foff, flen);
        b.endContainer();
        if (union !== null) b.endContainer();
      }
      this.path.pop();
    }
  }

  flatten(v: Value): Value {
    const rt = v.type.under;
    if (!(rt instanceof TypeRecord)) return v;
    this.types.length = 0;
    this.collect(rt, v.buf, v.off, v.len);
    const unique: Type[] = [];
    for (const t of this.types) if (!unique.includes(t)) unique.push(t);
    unique.sort(compareTypes);
    const inner = unique.length === 1 ? unique[0] : this.zctx.lookupTypeUnion(unique);
    const type = this.zctx.lookupTypeArray(inner);
    const b = this.b;
    b.reset();
    this.encode(rt, inner, v.buf, v.off, v.len);
    if (b.len === 0) return this.out.null(type);
    return this.out.view(type, b.buf, 0, b.len);
  }
}

registerFunction(
  'flatten',
  valueFunction(1, 1, ({ zctx }) => {
    const f = new Flattener(zctx);
    return ([v]) => f.flatten(v);
  }),
);

/** A record being assembled by unflatten: fields, each a leaf (null) or a record. */
class Node {
  names: string[] = [];
  kids: (Node | null)[] = [];

  /** Adds a path; returns how many earlier leaves it replaced. */
  add(path: string[], from: number): number {
    if (from >= path.length) return 0;
    const name = path[from];
    const last = this.names.length - 1;
    let removed = 0;
    if (last < 0 || this.names[last] !== name) {
      this.names.push(name);
      this.kids.push(from + 1 < path.length ? new Node() : null);
    } else if (from + 1 === path.length || this.kids[last] === null) {
      // The same field again: what it held before is replaced.
      removed = countLeaves(this.kids[last]);
      this.kids[last] = from + 1 < path.length ? new Node() : null;
    }
    const kid = this.kids[this.kids.length - 1];
    return removed + (kid === null ? 0 : kid.add(path, from + 1));
  }
}

function countLeaves(n: Node | null): number {
  if (n === null) return 1;
  let c = 0;
  for (const k of n.kids) c += countLeaves(k);
  return c;
}

class UnflattenError extends Error {}

class Unflattener {
  private types: Type[] = [];
  private bufs: Buffer[] = [];
  private offs: number[] = [];
  private lens: number[] = [];
  private next = 0;
  private readonly b = new Builder(256);
  private readonly out = new Scratch();
  private readonly path: string[] = [];
  private readonly elem = new Value(TypeString, Buffer.alloc(0), 0, -1);

  constructor(private readonly zctx: TypeContext) {}

  /** The key path and value of an entry (into this.path/elem), or false to skip it. */
  private parseElem(inner: Type, buf: Buffer, off: number, len: number): boolean {
    let t = inner;
    const u0 = inner.under;
    if (u0 instanceof TypeUnion && len >= 0) {
      const end = off + len;
      const ttag = readUvarint(buf, off, end);
      const tag = decodeInt(buf, uv.end, ttag - 1);
      const vtag = readUvarint(buf, uv.end + ttag - 1, end);
      t = u0.types[tag];
      off = uv.end;
      len = vtag - 1;
    }
    const rt = t.under;
    if (!(rt instanceof TypeRecord) || rt.fields.length !== 2) return false;
    const k = rt.indexOf('key');
    const vi = rt.indexOf('value');
    if (k < 0 || vi < 0) return false;
    const end = off + Math.max(len, 0);
    const fields: [number, number][] = [];
    let p = off;
    for (let i = 0; i < 2; i++) {
      if (p >= end) {
        fields.push([p, -1]);
        continue;
      }
      const tag = readUvarint(buf, p, end);
      fields.push([uv.end, tag - 1]);
      p = uv.end + (tag > 0 ? tag - 1 : 0);
    }
    const kt = rt.fields[k].type;
    const [koff, klen] = fields[k];
    this.path.length = 0;
    if (kt.under.id === ID.String) {
      this.path.push(klen > 0 ? decodeString(buf, koff, klen) : '');
    } else if (kt.under instanceof TypeArray && kt.under.type.under.id === ID.String) {
      const kend = koff + Math.max(klen, 0);
      for (let q = koff; q < kend;) {
        const tag = readUvarint(buf, q, kend);
        const l = tag - 1;
        this.path.push(l > 0 ? decodeString(buf, uv.end, l) : '');
        q = uv.end + (l > 0 ? l : 0);
      }
    } else {
      throw new UnflattenError(
        `invalid key type ${formatType(kt)}: expected either string or [string]`,
      );
    }
    const [voff, vlen] = fields[vi];
    this.elem.set(rt.fields[vi].type, buf, voff, vlen);
    return true;
  }

  private build(n: Node, b: Builder): TypeRecord {
    const fields: { name: string; type: Type }[] = [];
    for (let i = 0; i < n.names.length; i++) {
      const kid = n.kids[i];
      if (kid === null) {
        const j = this.next++;
        b.append(this.bufs[j], this.offs[j], this.lens[j]);
        fields.push({ name: n.names[i], type: this.types[j] });
        continue;
      }
      b.beginContainer();
      fields.push({ name: n.names[i], type: this.build(kid, b) });
      b.endContainer();
    }
    return this.zctx.lookupTypeRecord(fields);
  }

  unflatten(v: Value): Value {
    const at = v.type.under;
    if (!(at instanceof TypeArray)) return v;
    const root = new Node();
    let n = 0;
    const end = v.off + Math.max(v.len, 0);
    for (let p = v.off; p < end;) {
      const tag = readUvarint(v.buf, p, end);
      const eoff = uv.end;
      const elen = tag - 1;
      p = eoff + (elen > 0 ? elen : 0);
      try {
        if (!this.parseElem(at.type, v.buf, eoff, elen)) continue;
      } catch (e) {
        if (!(e instanceof UnflattenError)) throw e;
        return wrapError(this.zctx, e.message, new Value(at.type, v.buf, eoff, elen));
      }
      n -= root.add(this.path, 0);
      const el = this.elem;
      this.types[n] = el.type;
      this.bufs[n] = el.buf;
      this.offs[n] = el.off;
      this.lens[n] = el.len;
      n++;
    }
    const b = this.b;
    b.reset();
    this.next = 0;
    let t: TypeRecord;
    try {
      t = this.build(root, b);
    } catch (e) {
      if (!(e instanceof DuplicateFieldError)) throw e;
      return wrapError(this.zctx, e.message, v);
    }
    if (b.len === 0) return this.out.null(t);
    return this.out.view(t, b.buf, 0, b.len);
  }
}

registerFunction(
  'unflatten',
  valueFunction(1, 1, ({ zctx }) => {
    const u = new Unflattener(zctx);
    return ([v]) => u.unflatten(v);
  }),
);

/** nest_dotted: fields named "a.b" become nested records. */
class NestDotted {
  private readonly plans = new Map<Type, { rb: RecordBuilder; type: TypeRecord } | string | null>();
  private readonly out = new Scratch();

  constructor(private readonly zctx: TypeContext) {}

  private plan(rt: TypeRecord): { rb: RecordBuilder; type: TypeRecord } | string | null {
    let p = this.plans.get(rt);
    if (p === undefined) {
      const paths = rt.fields.map((f) => f.name.split('.'));
      if (!paths.some((x) => x.length > 1)) {
        p = null;
      } else {
        try {
          const rb = new RecordBuilder(this.zctx, paths);
          p = { rb, type: rb.type(rt.fields.map((f) => f.type)) };
        } catch (e) {
          if (!(e instanceof RecordBuilderError || e instanceof DuplicateFieldError)) throw e;
          p = `unflatten: ${e.message}`;
        }
      }
      this.plans.set(rt, p);
    }
    return p;
  }

  nest(v: Value): Value {
    const rt = v.type.under;
    if (!(rt instanceof TypeRecord)) return v;
    const p = this.plan(rt);
    if (p === null) return v;
    if (typeof p === 'string') return this.zctx.newError(p);
    const rb = p.rb;
    rb.reset();
    const end = v.off + Math.max(v.len, 0);
    for (let q = v.off; q < end;) {
      const tag = readUvarint(v.buf, q, end);
      rb.append(v.buf, uv.end, tag - 1);
      q = uv.end + (tag > 0 ? tag - 1 : 0);
    }
    if (v.len < 0) return this.out.null(p.type);
    return this.out.view(p.type, rb.b.buf, 0, rb.b.len);
  }
}

registerFunction(
  'nest_dotted',
  valueFunction(
    0,
    1,
    ({ zctx }) => {
      const n = new NestDotted(zctx);
      // As in the reference, the record nested is `this`, even when an
      // argument is given.
      return (args) => n.nest(args[0]);
    },
    { path: [] },
  ),
);
