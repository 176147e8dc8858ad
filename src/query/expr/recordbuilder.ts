// Building records from values at field paths (`cut a, b.c, b.d`), nested
// records opened and closed in order, as the reference's RecordBuilder.
// Fields of one nested record must be adjacent; a path may not repeat or
// be a prefix of another.

import { DuplicateFieldError, TypeContext } from '../../zed/context';
import { Type, TypeRecord } from '../../zed/types';
import { Builder } from '../../zed/zcode';

interface FieldInfo {
  path: readonly string[];
  /** Names of the nested records opened before this field. */
  begins: string[];
  /** Nested records closed after this field. */
  ends: number;
}

export class RecordBuilderError extends Error {}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export class RecordBuilder {
  private readonly infos: FieldInfo[] = [];
  /** Where fields are written (see into()). */
  b = new Builder(256);
  private cur = 0;
  private typeCache = new Map<string, TypeRecord>();
  private lastTypes: Type[] = [];
  private lastType: TypeRecord | null = null;

  /** Throws RecordBuilderError or DuplicateFieldError for an impossible layout. */
  constructor(
    private readonly zctx: TypeContext,
    readonly paths: readonly (readonly string[])[],
  ) {
    const seen = new Set<string>();
    let current: readonly string[] = [];
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i];
      if (path.length === 0) throw new RecordBuilderError('empty field path');
      const record = path.slice(0, -1);
      const begins: string[] = [];
      if (!samePath(record, current)) {
        let pos = 0;
        const l = Math.min(record.length, current.length);
        while (pos < l && record[pos] === current[pos]) pos++;
        if (i > 0) this.infos[i - 1].ends = current.length - pos;
        for (let p = pos; p < record.length; p++) {
          const name = record.slice(0, p + 1).join('.');
          if (seen.has(name))
            throw new RecordBuilderError(`fields in record ${name} must be adjacent`);
          seen.add(name);
          begins.push(record[p]);
        }
        current = record;
      }
      for (const fi of this.infos) {
        const short = fi.path.length < path.length ? fi.path : path;
        const long = fi.path.length < path.length ? path : fi.path;
        if (short.every((x, k) => x === long[k])) throw new DuplicateFieldError(path.join('.'));
      }
      this.infos.push({ path, begins, ends: 0 });
    }
    if (this.infos.length > 0) this.infos[this.infos.length - 1].ends = current.length;
  }

  /** Starts a record in this builder's own buffer. */
  reset(): void {
    this.b.reset();
    this.cur = 0;
  }

  /** Starts a record written into b (e.g. a value arena's builder). */
  into(b: Builder): void {
    this.b = b;
    this.cur = 0;
  }

  /** Appends the next field's body (len -1 for null). */
  append(buf: Uint8Array, off: number, len: number): void {
    const fi = this.infos[this.cur++];
    for (let i = 0; i < fi.begins.length; i++) this.b.beginContainer();
    appendTagged(this.b, buf, off, len);
    for (let i = 0; i < fi.ends; i++) this.b.endContainer();
  }

  /** The record type for the fields' types (cached by the list of types). */
  type(types: readonly Type[]): TypeRecord {
    const last = this.lastTypes;
    if (this.lastType !== null && last.length === types.length) {
      let same = true;
      for (let i = 0; i < types.length; i++) {
        if (last[i] !== types[i]) {
          same = false;
          break;
        }
      }
      if (same) return this.lastType;
    }
    let key = '';
    for (const t of types) key += t.id + ',';
    let rt = this.typeCache.get(key);
    if (rt === undefined) {
      rt = this.buildType(types);
      this.typeCache.set(key, rt);
    }
    this.lastTypes = types.slice();
    this.lastType = rt;
    return rt;
  }

  private buildType(types: readonly Type[]): TypeRecord {
    type Rec = { name: string; fields: { name: string; type: Type }[] };
    let current: Rec = { name: '', fields: [] };
    const stack: Rec[] = [current];
    this.infos.forEach((fi, i) => {
      for (const name of fi.begins) {
        current = { name, fields: [] };
        stack.push(current);
      }
      current.fields.push({ name: fi.path[fi.path.length - 1], type: types[i] });
      for (let j = 0; j < fi.ends; j++) {
        const rt = this.zctx.lookupTypeRecord(current.fields);
        stack.pop();
        const parent = stack[stack.length - 1];
        parent.fields.push({ name: current.name, type: rt });
        current = parent;
      }
    });
    return this.zctx.lookupTypeRecord(stack[0].fields);
  }
}

/**
 * Appends a tagged child like Builder.append, copying short bodies byte
 * by byte: a subarray for the copy would cost an object per field.
 */
export function appendTagged(b: Builder, src: Uint8Array, off: number, len: number): void {
  if (len < 0) {
    b.appendNull();
    return;
  }
  if (len > 64 && !Buffer.isBuffer(src)) {
    b.append(src, off, len);
    return;
  }
  b.grow(len + 10);
  const buf = b.buf;
  let p = b.len;
  let tag = len + 1;
  while (tag >= 0x80) {
    buf[p++] = (tag & 0x7f) | 0x80;
    tag >>>= 7;
  }
  buf[p++] = tag;
  if (len > 64) (src as Buffer).copy(buf, p, off, off + len);
  else for (let i = 0; i < len; i++) buf[p + i] = src[off + i];
  b.len = p + len;
}
