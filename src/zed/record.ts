// Field access on record bodies without materialising the record.

import { TypeRecord } from './types';
import { Value } from './value';
import { readUvarint, uv, ZcodeError } from './zcode';

/**
 * Points out at field i of a record value (which must be non-null and of
 * type rt, or named rt). Returns false when the body is corrupt.
 */
export function fieldAt(rec: Value, rt: TypeRecord, i: number, out: Value): boolean {
  const buf = rec.buf;
  let off = rec.off;
  const end = off + rec.len;
  for (let k = 0; k < i; k++) {
    const tag = readUvarint(buf, off, end);
    if (tag < 0) return false;
    off = uv.end + (tag === 0 ? 0 : tag - 1);
  }
  const tag = readUvarint(buf, off, end);
  if (tag < 0) return false;
  out.type = rt.fields[i].type;
  out.buf = buf;
  out.off = uv.end;
  out.len = tag - 1;
  return true;
}

/** The fields of a record value as standalone values (for non-hot code). */
export function recordFields(rec: Value): Value[] {
  const rt = rec.type.under as TypeRecord;
  const out: Value[] = [];
  const buf = rec.buf;
  let off = rec.off;
  const end = off + rec.len;
  for (const f of rt.fields) {
    const tag = readUvarint(buf, off, end);
    if (tag < 0) throw new ZcodeError('truncated record');
    const start = uv.end;
    const len = tag - 1;
    out.push(new Value(f.type, buf, start, len));
    off = start + (len < 0 ? 0 : len);
  }
  return out;
}
