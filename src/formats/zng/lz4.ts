// LZ4 blocks by the C library where its addon loads (the optional `lz4`
// package, which npm builds at install with node-gyp), else by the
// JavaScript codec in lz4js.ts. Both read and write the same block format,
// so either reads what the other wrote; the compressed bytes differ.
//
// Measured on the bench's ZNG responses and data objects (docs/benchmarks.md,
// "LZ4: the C library beside the JavaScript codec"): C compresses 2.0–2.3×
// and decompresses about 4× as fast. ZLAKE_LZ4=js forces the JavaScript
// codec; ZLAKE_LZ4=c makes a missing addon an error instead of a fallback.

import { jsLz4Compress, jsLz4Decompress, lz4CompressBound } from './lz4js';

export { jsLz4Compress, jsLz4Decompress, lz4CompressBound };

/** A block call on ranges: src[srcOff, srcEnd) into dst[dstOff, dstEnd). */
type BlockFn = typeof jsLz4Compress;

/** The addon's block calls: whole buffers (views), sizes or error codes. */
interface Binding {
  /** LZ4_compress_default: the compressed length, or 0 if dst is too small. */
  compress(src: Uint8Array, dst: Uint8Array): number;
  /** LZ4_decompress_safe: the length written, negative if src is malformed or dst too small. */
  uncompress(src: Uint8Array, dst: Uint8Array): number;
}

function loadBinding(): Binding | null {
  const want = process.env.ZLAKE_LZ4;
  if (want === 'js') return null;
  try {
    // The addon itself, not the package's entry point, which silently
    // falls back to a slow JavaScript codec of its own.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('lz4/build/Release/lz4.node') as Binding;
  } catch (e) {
    if (want === 'c') {
      throw new Error(
        `ZLAKE_LZ4=c: the lz4 addon did not load (${(e as Error).message}); ` +
          'install python3, make and g++, then run `npm rebuild lz4`',
      );
    }
    return null;
  }
}

const binding = loadBinding();

/** Which codec runs: "c" (the LZ4 library) or "js". */
export const lz4Codec: 'c' | 'js' = binding ? 'c' : 'js';

/**
 * Compresses src[srcOff, srcEnd) by the C library into dst[dstOff, dstEnd);
 * the same contract as jsLz4Compress (0: it does not fit).
 */
export const cLz4Compress: BlockFn = (src, srcOff, srcEnd, dst, dstOff, dstEnd) => {
  if (!binding) throw new Error('the lz4 addon is not loaded');
  if (dstEnd <= dstOff) return 0;
  return binding.compress(src.subarray(srcOff, srcEnd), dst.subarray(dstOff, dstEnd));
};

/**
 * Decompresses src[srcOff, srcEnd) by the C library into dst[dstOff,
 * dstEnd); the same contract as jsLz4Decompress (-1: malformed, or it
 * would write past dstEnd). The library's safe decoder never reads or
 * writes outside the two ranges, whatever the input.
 */
export const cLz4Decompress: BlockFn = (src, srcOff, srcEnd, dst, dstOff, dstEnd) => {
  if (!binding) throw new Error('the lz4 addon is not loaded');
  if (srcOff >= srcEnd) return -1;
  const n = binding.uncompress(src.subarray(srcOff, srcEnd), dst.subarray(dstOff, dstEnd));
  return n < 0 ? -1 : n;
};

/** Compresses one block with the codec that runs (see jsLz4Compress for the contract). */
export const lz4Compress = binding ? cLz4Compress : jsLz4Compress;

/**
 * Decompresses by the C library, and where it refuses a block, by the
 * JavaScript codec: the C decoder also refuses blocks that break the
 * format's end-of-block rules, which the reference's decoder (and ours)
 * accept, so that the same files load as in the reference.
 */
const cThenJsLz4Decompress: BlockFn = (src, srcOff, srcEnd, dst, dstOff, dstEnd) => {
  const n = cLz4Decompress(src, srcOff, srcEnd, dst, dstOff, dstEnd);
  return n >= 0 ? n : jsLz4Decompress(src, srcOff, srcEnd, dst, dstOff, dstEnd);
};

/** Decompresses one block with the codec that runs (see jsLz4Decompress for the contract). */
export const lz4Decompress = binding ? cThenJsLz4Decompress : jsLz4Decompress;
