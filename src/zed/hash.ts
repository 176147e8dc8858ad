// A fast 32-bit hash of byte ranges (MurmurHash3's mixing), for hash tables
// keyed by value bytes such as group-by keys. Equal (type, bytes) pairs are
// equal values, so hashing the type ID with the bytes is enough.

export function hashBytes(buf: Uint8Array, off: number, len: number, seed = 0): number {
  let h = seed ^ len;
  const end = off + (len & ~3);
  let i = off;
  for (; i < end; i += 4) {
    let k = buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const rest = len & 3;
  if (rest > 0) {
    let k = buf[i];
    if (rest > 1) k ^= buf[i + 1] << 8;
    if (rest > 2) k ^= buf[i + 2] << 16;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of a value: its type ID mixed with its body (null hashes apart from empty). */
export function hashValue(typeId: number, buf: Uint8Array, off: number, len: number): number {
  return hashBytes(buf, off, len < 0 ? 0 : len, (typeId * 0x9e3779b1) ^ (len < 0 ? 0x55555555 : 0));
}
