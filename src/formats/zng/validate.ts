// Structural validation of value bodies against their types, as the
// reference does when it loads ZNG into the lake or sniffs an input's
// format: containers must parse, records must have every field, union
// values must be a valid tag and one value, set elements must be sorted and
// distinct, and enum selectors in range. Leaf values are not checked.

import { bytesCompare, decodeInt, decodeUint } from '../../zed/primitive';
import {
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';
import { readUvarint, uv } from '../../zed/zcode';
import { MALFORMED } from './frame';

// The child most recently read by next(): its body, and its tag's start.
let childOff = 0;
let childLen = 0;
let childStart = 0;

/** Reads the child at buf[p] (before end); returns the offset after it, or -1. */
function next(buf: Uint8Array, p: number, end: number): number {
  const tag = readUvarint(buf, p, end);
  if (tag < 0) return -1;
  childStart = p;
  childOff = uv.end;
  childLen = tag - 1;
  if (childLen < 0) return childOff;
  if (childLen > end - childOff) return -1;
  return childOff + childLen;
}

/**
 * Checks the body buf[off, off+len) (len -1 for null) of a value of type t.
 * Returns an error message (the reference's text where it has one), or
 * null when the body is sound.
 */
export function checkBody(t: Type, buf: Uint8Array, off: number, len: number): string | null {
  if (len < 0) return null;
  while (t instanceof TypeNamed || t instanceof TypeErr) t = t.type;
  const end = off + len;
  if (t instanceof TypeRecord) {
    let p = off;
    for (const f of t.fields) {
      if (p >= end) return 'record missing a field';
      p = next(buf, p, end);
      if (p < 0) return MALFORMED;
      const err = checkBody(f.type, buf, childOff, childLen);
      if (err) return err;
    }
    return null;
  }
  if (t instanceof TypeArray) {
    for (let p = off; p < end;) {
      p = next(buf, p, end);
      if (p < 0) return MALFORMED;
      const err = checkBody(t.type, buf, childOff, childLen);
      if (err) return err;
    }
    return null;
  }
  if (t instanceof TypeSet) return checkSet(buf, off, end);
  if (t instanceof TypeMap) {
    for (let p = off; p < end;) {
      p = next(buf, p, end);
      if (p < 0) return MALFORMED;
      let err = checkBody(t.keyType, buf, childOff, childLen);
      if (err) return err;
      if (p >= end) return MALFORMED;
      p = next(buf, p, end);
      if (p < 0) return MALFORMED;
      err = checkBody(t.valType, buf, childOff, childLen);
      if (err) return err;
    }
    return null;
  }
  if (t instanceof TypeUnion) {
    if (len === 0) return 'union has empty body';
    let p = next(buf, off, end);
    if (p < 0) return MALFORMED;
    const tag = childLen <= 0 ? 0 : childLen > 6 ? -1 : decodeInt(buf, childOff, childLen);
    if (tag < 0 || tag >= t.types.length) return 'invalid union tag';
    if (p >= end) return MALFORMED;
    p = next(buf, p, end);
    if (p < 0) return MALFORMED;
    if (p < end) return 'union value container has more than two items';
    return checkBody(t.types[tag], buf, childOff, childLen);
  }
  if (t instanceof TypeEnum) {
    let big = false;
    for (let i = 6; i < len; i++) if (buf[off + i] !== 0) big = true;
    if (big || decodeUint(buf, off, len < 6 ? len : 6) >= t.symbols.length) {
      return 'enum selector out of range';
    }
  }
  return null;
}

/** Set elements, each as tag and body, must be in strictly increasing byte order. */
function checkSet(buf: Uint8Array, off: number, end: number): string | null {
  let prevStart = -1;
  let prevEnd = -1;
  for (let p = off; p < end;) {
    p = next(buf, p, end);
    if (p < 0) return MALFORMED;
    const start = childStart;
    if (prevStart >= 0) {
      const c = bytesCompare(buf, prevStart, prevEnd - prevStart, buf, start, p - start);
      if (c === 0) return 'invalid ZNG: duplicate set element';
      if (c > 0) return 'invalid ZNG: set elements not sorted';
    }
    prevStart = start;
    prevEnd = p;
  }
  return null;
}
