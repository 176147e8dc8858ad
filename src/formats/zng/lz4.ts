// LZ4 block compression (https://github.com/lz4/lz4/blob/dev/doc/lz4_Block_format.md),
// the only compression format ZNG defines (compression format byte 0).
//
// A block is a run of sequences: a token byte (literal count in the high
// nibble, match length - 4 in the low nibble, 15 meaning "more bytes
// follow"), the literals, a 2-byte little-endian back-reference offset, and
// the rest of the match length. The last sequence has literals only.
//
// Both directions work on (buffer, offset, end) ranges so frames are
// compressed and decompressed in place, with no intermediate arrays.

const MIN_MATCH = 4;
/** The last 5 bytes of a block are always literals. */
const LAST_LITERALS = 5;
/** A match may not start within the last 12 bytes of a block. */
const MF_LIMIT = 12;
const MAX_OFFSET = 65535;
const MAX_HASH_LOG = 16;
/** After 2^SKIP_TRIGGER failed probes the search starts skipping ahead. */
const SKIP_TRIGGER = 6;
/** Below this many bytes, copy byte by byte rather than through a subarray. */
const SHORT_COPY = 32;

/**
 * Decompresses the LZ4 block src[srcOff, srcEnd) into dst[dstOff, dstEnd).
 * Returns the number of bytes written, or -1 if the block is malformed or
 * would write past dstEnd. It never reads or writes outside the ranges.
 */
export function lz4Decompress(
  src: Uint8Array,
  srcOff: number,
  srcEnd: number,
  dst: Uint8Array,
  dstOff: number,
  dstEnd: number,
): number {
  let s = srcOff;
  let d = dstOff;
  if (s >= srcEnd) return -1;
  for (;;) {
    const token = src[s++];
    // Literals.
    let lit = token >>> 4;
    if (lit === 15) {
      let b;
      do {
        if (s >= srcEnd) return -1;
        b = src[s++];
        lit += b;
      } while (b === 255);
    }
    if (lit > 0) {
      if (lit > srcEnd - s || lit > dstEnd - d) return -1;
      if (lit < SHORT_COPY) {
        const e = s + lit;
        while (s < e) dst[d++] = src[s++];
      } else {
        dst.set(src.subarray(s, s + lit), d);
        s += lit;
        d += lit;
      }
    }
    // The last sequence ends after its literals.
    if (s >= srcEnd) return d - dstOff;
    // Match.
    if (s + 2 > srcEnd) return -1;
    const offset = src[s] | (src[s + 1] << 8);
    s += 2;
    if (offset === 0 || offset > d - dstOff) return -1;
    let len = token & 15;
    if (len === 15) {
      let b;
      do {
        if (s >= srcEnd) return -1;
        b = src[s++];
        len += b;
      } while (b === 255);
    }
    len += MIN_MATCH;
    if (len > dstEnd - d) return -1;
    let m = d - offset;
    if (len < SHORT_COPY || offset < len) {
      // Overlapping matches repeat the last `offset` bytes, which a
      // forward byte copy does by construction.
      const e = d + len;
      while (d < e) dst[d++] = dst[m++];
    } else {
      dst.copyWithin(d, m, m + len);
      d += len;
    }
    if (s >= srcEnd) return -1; // a block must end with literals
  }
}

// One hash table, reused by every compression (JS runs one at a time).
const table = new Int32Array(1 << MAX_HASH_LOG);
// A module binding, not a global lookup: in a vm context (as under jest)
// each access to the global Math is slow.
const imul = Math.imul;

/**
 * Compresses src[srcOff, srcEnd) as one LZ4 block into dst starting at
 * dstOff, writing no further than dstEnd. Returns the compressed length, or
 * 0 if the output does not fit (callers pass dstEnd = dstOff + srcLen - 1
 * to learn that compression does not pay).
 */
export function lz4Compress(
  src: Uint8Array,
  srcOff: number,
  srcEnd: number,
  dst: Uint8Array,
  dstOff: number,
  dstEnd: number,
): number {
  const n = srcEnd - srcOff;
  let o = dstOff;
  let anchor = srcOff;
  if (n >= MF_LIMIT + 1) {
    let hashLog = 10;
    while (hashLog < MAX_HASH_LOG && 1 << hashLog < n) hashLog++;
    const shift = 32 - hashLog;
    // Entries hold position + 1 relative to srcOff; 0 is empty.
    table.fill(0, 0, 1 << hashLog);
    const mfLimit = srcEnd - MF_LIMIT;
    const matchLimit = srcEnd - LAST_LITERALS;
    const dv = new DataView(src.buffer, src.byteOffset, src.byteLength);
    let ip = srcOff;
    let seq = dv.getInt32(ip, true);
    table[imul(seq, -1640531535) >>> shift] = ip - srcOff + 1;
    ip++;
    outer: for (;;) {
      // Find a 4-byte match, probing ever more sparsely through
      // incompressible stretches.
      let ref: number;
      let probes = 1 << SKIP_TRIGGER;
      for (;;) {
        if (ip > mfLimit) break outer;
        seq = dv.getInt32(ip, true);
        const h = imul(seq, -1640531535) >>> shift;
        ref = table[h] - 1 + srcOff;
        table[h] = ip - srcOff + 1;
        if (ref >= srcOff && ip - ref <= MAX_OFFSET && dv.getInt32(ref, true) === seq) break;
        ip += probes++ >>> SKIP_TRIGGER;
      }
      // Extend backwards over literals, then forwards.
      while (ip > anchor && ref > srcOff && src[ip - 1] === src[ref - 1]) {
        ip--;
        ref--;
      }
      const len = matchLength(src, dv, ip, ref, matchLimit);
      o = putSequence(src, anchor, ip - anchor, ip - ref, len, dst, o, dstEnd);
      if (o < 0) return 0;
      ip += len;
      anchor = ip;
      if (ip > mfLimit) break;
      // Index a position inside the match to find the next one sooner.
      const p = ip - 2;
      table[imul(dv.getInt32(p, true), -1640531535) >>> shift] = p - srcOff + 1;
    }
  }
  // Last literals.
  const lit = srcEnd - anchor;
  if (o + 1 + lit + ((lit / 255) | 0) + 1 > dstEnd) return 0;
  return putLiterals(src, anchor, lit, dst, o) - dstOff;
}

/** Length of the match at ip against ref (at least MIN_MATCH), up to limit. */
function matchLength(
  src: Uint8Array,
  dv: DataView,
  ip: number,
  ref: number,
  limit: number,
): number {
  let len = MIN_MATCH;
  while (ip + len + 4 <= limit && dv.getInt32(ip + len, true) === dv.getInt32(ref + len, true)) {
    len += 4;
  }
  while (ip + len < limit && src[ip + len] === src[ref + len]) len++;
  return len;
}

/**
 * Writes a sequence (token, literals, offset, match length) at dst[o];
 * returns the offset after it, or -1 if it would pass dstEnd.
 */
function putSequence(
  src: Uint8Array,
  anchor: number,
  lit: number,
  offset: number,
  len: number,
  dst: Uint8Array,
  o: number,
  dstEnd: number,
): number {
  const ml = len - MIN_MATCH;
  if (o + 1 + lit + ((lit / 255) | 0) + 1 + 2 + ((ml / 255) | 0) + 1 > dstEnd) return -1;
  const tokenAt = o;
  o = putLiterals(src, anchor, lit, dst, o);
  dst[o++] = offset & 0xff;
  dst[o++] = offset >>> 8;
  if (ml >= 15) {
    dst[tokenAt] |= 15;
    return putLengthRest(dst, o, ml - 15);
  }
  dst[tokenAt] |= ml;
  return o;
}

/**
 * Writes a token holding the literal count (the caller adds the match
 * length), the count's extra bytes, and the literals; returns the offset
 * after them.
 */
function putLiterals(
  src: Uint8Array,
  from: number,
  lit: number,
  dst: Uint8Array,
  o: number,
): number {
  if (lit >= 15) {
    dst[o++] = 0xf0;
    o = putLengthRest(dst, o, lit - 15);
  } else {
    dst[o++] = lit << 4;
  }
  if (lit < SHORT_COPY) {
    for (let i = from, e = from + lit; i < e; i++) dst[o++] = src[i];
  } else {
    dst.set(src.subarray(from, from + lit), o);
    o += lit;
  }
  return o;
}

/** Writes the bytes that extend a length past its token's 15. */
function putLengthRest(dst: Uint8Array, o: number, r: number): number {
  while (r >= 255) {
    dst[o++] = 255;
    r -= 255;
  }
  dst[o++] = r;
  return o;
}

/** The largest compressed size of n bytes (LZ4_compressBound). */
export function lz4CompressBound(n: number): number {
  return n + ((n / 255) | 0) + 16;
}
