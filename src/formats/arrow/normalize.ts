// Map bodies in normal form (ZNG spec): entries ordered by the bytes of
// their tagged keys, duplicate keys dropped, as the reference's
// zed.NormalizeMap leaves them.

import { bytesCompare } from '../../zed/primitive';
import { Builder, readUvarint, uv, ZcodeError } from '../../zed/zcode';

function skip(buf: Uint8Array, off: number, end: number): number {
  const tag = readUvarint(buf, off, end);
  if (tag < 0) throw new ZcodeError('truncated tag');
  return uv.end + (tag === 0 ? 0 : tag - 1);
}

/** Normalizes the map body b.buf[start, b.len) in place. */
export function normalizeMapBody(b: Builder, start: number): void {
  const buf = b.buf;
  const end = b.len;
  const entries: number[] = []; // keyStart, keyEnd, valEnd triples
  let sorted = true;
  for (let p = start; p < end;) {
    const k = skip(buf, p, end);
    const v = skip(buf, k, end);
    const n = entries.length;
    if (n > 0 && sorted) {
      if (bytesCompare(buf, entries[n - 3], entries[n - 2] - entries[n - 3], buf, p, k - p) >= 0)
        sorted = false;
    }
    entries.push(p, k, v);
    p = v;
  }
  if (sorted) return;
  const idx: number[] = [];
  for (let i = 0; i < entries.length; i += 3) idx.push(i);
  idx.sort((x, y) => {
    const c = bytesCompare(
      buf,
      entries[x],
      entries[x + 1] - entries[x],
      buf,
      entries[y],
      entries[y + 1] - entries[y],
    );
    return c !== 0 ? c : x - y;
  });
  const out = Buffer.allocUnsafe(end - start);
  let o = 0;
  let prev = -1;
  for (const i of idx) {
    const ks = entries[i];
    const kl = entries[i + 1] - ks;
    if (
      prev >= 0 &&
      bytesCompare(buf, entries[prev], entries[prev + 1] - entries[prev], buf, ks, kl) === 0
    ) {
      continue;
    }
    buf.copy(out, o, ks, entries[i + 2]);
    o += entries[i + 2] - ks;
    prev = i;
  }
  out.copy(buf, start, 0, o);
  b.len = start + o;
}
