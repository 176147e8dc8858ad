// LZ4 block compression (https://github.com/lz4/lz4/blob/dev/doc/lz4_Block_format.md),
// the only compression format ZNG defines (compression format byte 0), in
// JavaScript: the codec where the C library's addon is not built (lz4.ts).
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
/**
 * At most 4096 hash entries (16 KiB, LZ4's default table size): the table
 * stays in cache, which on the bench's DNS records compresses 1.4× faster
 * than a 64K-entry table, for output about 6% larger.
 */
const MAX_HASH_LOG = 12;
/** After 2^SKIP_TRIGGER failed probes the search starts skipping ahead. */
const SKIP_TRIGGER = 6;
/** Below this many bytes, copy byte by byte rather than through a subarray. */
const SHORT_COPY = 32;

/**
 * Decompresses the LZ4 block src[srcOff, srcEnd) into dst[dstOff, dstEnd).
 * Returns the number of bytes written, or -1 if the block is malformed or
 * would write past dstEnd. It never reads or writes outside the ranges.
 *
 * The fast path copies short literal runs and matches 4 bytes at a time
 * through DataViews, a fixed number of bytes whatever the exact length
 * (the bytes written past the run are overwritten by what follows); it is
 * taken only where that many bytes fit inside both ranges, so near the
 * ends of a block the exact byte-wise path runs instead.
 */
export function jsLz4Decompress(
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
  const sv = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const dv = new DataView(dst.buffer, dst.byteOffset, dst.byteLength);
  // Last positions from which a 16-byte literal copy or 20-byte match copy
  // stays inside the ranges.
  const srcFast = srcEnd - 16;
  const dstLitFast = dstEnd - 16;
  const dstMatchFast = dstEnd - 20;
  for (;;) {
    const token = src[s++];
    // Literals.
    let lit = token >>> 4;
    if (lit < 15 && s <= srcFast && d <= dstLitFast) {
      dv.setInt32(d, sv.getInt32(s, true), true);
      dv.setInt32(d + 4, sv.getInt32(s + 4, true), true);
      if (lit > 8) {
        dv.setInt32(d + 8, sv.getInt32(s + 8, true), true);
        dv.setInt32(d + 12, sv.getInt32(s + 12, true), true);
      }
      s += lit;
      d += lit;
    } else {
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
    }
    // Match. (After a fast literal copy at least 1 byte of the block was
    // left, so the end check there is the one below.)
    if (s + 2 > srcEnd) return s >= srcEnd ? d - dstOff : -1;
    const offset = src[s] | (src[s + 1] << 8);
    s += 2;
    if (offset === 0 || offset > d - dstOff) return -1;
    let len = token & 15;
    let m = d - offset;
    if (len < 15 && offset >= 4 && d <= dstMatchFast) {
      // At most 18 bytes; 4-byte steps read only bytes already written
      // when the offset is at least 4.
      dv.setInt32(d, dv.getInt32(m, true), true);
      dv.setInt32(d + 4, dv.getInt32(m + 4, true), true);
      dv.setInt32(d + 8, dv.getInt32(m + 8, true), true);
      if (len > 8) {
        dv.setInt32(d + 12, dv.getInt32(m + 12, true), true);
        dv.setInt32(d + 16, dv.getInt32(m + 16, true), true);
      }
      d += len + MIN_MATCH;
    } else {
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
      if (offset >= len && len >= SHORT_COPY) {
        dst.copyWithin(d, m, m + len);
        d += len;
      } else if (offset >= 4 && d + len + 4 <= dstEnd) {
        // Overlapping or short: 4-byte steps, each reading bytes already
        // written, rounded up to a whole step (room checked above).
        const e = d + len;
        while (d < e) {
          dv.setInt32(d, dv.getInt32(m, true), true);
          d += 4;
          m += 4;
        }
        d = e;
      } else {
        // Offsets under 4 repeat the last `offset` bytes, which a forward
        // byte copy does by construction.
        const e = d + len;
        while (d < e) dst[d++] = dst[m++];
      }
    }
    if (s >= srcEnd) return -1; // a block must end with literals
  }
}

// One hash table, reused by every compression (JS runs one at a time).
const table = new Int32Array(1 << MAX_HASH_LOG);
// A module binding, not a global lookup: in a vm context (as under jest)
// each access to the global Math is slow.
const imul = Math.imul;
const clz32 = Math.clz32;
/** Knuth's multiplicative hash constant (2654435761 as an int32). */
const HASH_MUL = -1640531535;

/**
 * Compresses src[srcOff, srcEnd) as one LZ4 block into dst starting at
 * dstOff, writing no further than dstEnd. Returns the compressed length, or
 * 0 if the output does not fit (callers pass dstEnd = dstOff + srcLen - 1
 * to learn that compression does not pay). Bytes of dst[dstOff, dstEnd)
 * past the returned length may be overwritten.
 */
export function jsLz4Compress(
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
    // Entries hold absolute positions. An empty entry (0) or a stale one
    // is harmless: every candidate is checked against the input bytes.
    table.fill(0, 0, 1 << hashLog);
    const mfLimit = srcEnd - MF_LIMIT;
    const matchLimit = srcEnd - LAST_LITERALS;
    const sv = new DataView(src.buffer, src.byteOffset, src.byteLength);
    const dv = new DataView(dst.buffer, dst.byteOffset, dst.byteLength);
    let ip = srcOff;
    table[imul(sv.getInt32(ip, true), HASH_MUL) >>> shift] = ip;
    ip++;
    outer: for (;;) {
      // Find a 4-byte match, probing ever more sparsely through
      // incompressible stretches.
      let ref: number;
      let seq: number;
      let probes = 1 << SKIP_TRIGGER;
      for (;;) {
        if (ip > mfLimit) break outer;
        seq = sv.getInt32(ip, true);
        const h = imul(seq, HASH_MUL) >>> shift;
        ref = table[h];
        table[h] = ip;
        if (ref >= srcOff && ip - ref <= MAX_OFFSET && sv.getInt32(ref, true) === seq) break;
        ip += probes++ >>> SKIP_TRIGGER;
      }
      // Extend backwards over literals, then forwards 4 bytes at a time.
      while (ip > anchor && ref > srcOff && src[ip - 1] === src[ref - 1]) {
        ip--;
        ref--;
      }
      let p = ip + MIN_MATCH;
      let r = ref + MIN_MATCH;
      const limit4 = matchLimit - 4;
      for (;;) {
        if (p > limit4) {
          while (p < matchLimit && src[p] === src[r]) {
            p++;
            r++;
          }
          break;
        }
        const x = sv.getInt32(p, true) ^ sv.getInt32(r, true);
        if (x !== 0) {
          // Add the equal low-order (earlier) bytes of the word.
          p += (31 - clz32(x & -x)) >>> 3;
          break;
        }
        p += 4;
        r += 4;
      }
      // The sequence: token, literal count rest, literals, offset, match
      // length rest.
      const lit = ip - anchor;
      const ml = p - ip - MIN_MATCH;
      if (o + lit + ((lit / 255) | 0) + ((ml / 255) | 0) + 5 > dstEnd) return 0;
      const tokenAt = o;
      o = putLiterals(src, sv, anchor, lit, dst, dv, o, dstEnd);
      const offset = ip - ref;
      dst[o] = offset;
      dst[o + 1] = offset >>> 8;
      o += 2;
      if (ml >= 15) {
        dst[tokenAt] |= 15;
        o = putLengthRest(dst, o, ml - 15);
      } else {
        dst[tokenAt] |= ml;
      }
      ip = p;
      anchor = ip;
      if (ip > mfLimit) break;
      // Index a position inside the match to find the next one sooner.
      const q = ip - 2;
      table[imul(sv.getInt32(q, true), HASH_MUL) >>> shift] = q;
    }
  }
  // Last literals.
  const lit = srcEnd - anchor;
  if (o + 1 + lit + ((lit / 255) | 0) + 1 > dstEnd) return 0;
  return putLiterals(src, null, anchor, lit, dst, null, o, dstEnd) - dstOff;
}

/**
 * Writes a token holding the literal count (the caller adds the match
 * length), the count's extra bytes, and the literals; returns the offset
 * after them. With views of src and dst, short runs are copied 8 bytes at
 * a time where 8 more bytes than needed fit before dstEnd.
 */
function putLiterals(
  src: Uint8Array,
  sv: DataView | null,
  from: number,
  lit: number,
  dst: Uint8Array,
  dv: DataView | null,
  o: number,
  dstEnd: number,
): number {
  if (lit >= 15) {
    dst[o++] = 0xf0;
    o = putLengthRest(dst, o, lit - 15);
  } else {
    dst[o++] = lit << 4;
  }
  if (lit < SHORT_COPY) {
    if (sv !== null && dv !== null && o + lit + 8 <= dstEnd && from + lit + 8 <= src.length) {
      for (let i = 0; i < lit; i += 8) {
        dv.setInt32(o + i, sv.getInt32(from + i, true), true);
        dv.setInt32(o + i + 4, sv.getInt32(from + i + 4, true), true);
      }
      o += lit;
    } else {
      for (let i = from, e = from + lit; i < e; i++) dst[o++] = src[i];
    }
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
