// A values frame from the ZNG writer's values buffer: LZ4-compressed into a
// buffer of its own when that is smaller, else sent uncompressed from the
// values buffer itself with its header written into the bytes reserved
// before the values. The writer builds frames in-thread or on the
// compression worker (compresspool.ts) with this one function, so both
// give the same bytes.

import { putUvarint, uvarintSize } from '../../zed/zcode';
import { COMPRESSED, COMPRESSION_LZ4, FrameType, MAX_HEADER } from './frame';
import { lz4Compress } from './lz4';

/** Bytes the writer keeps free before its values, room for an uncompressed frame's header. */
export const RESERVE = 11;

export interface BuiltFrame {
  frame: Buffer;
  /** Whether frame is a view of the values buffer (which then belongs to it). */
  inPlace: boolean;
}

/**
 * The frame of src[RESERVE, RESERVE + vlen), compressed when compress is
 * set and that is smaller: into out when given (MAX_HEADER + vlen bytes at
 * least), else into a new buffer.
 */
export function buildValuesFrame(
  src: Buffer,
  vlen: number,
  compress: boolean,
  into: Buffer | null = null,
): BuiltFrame {
  const type = FrameType.Values;
  if (compress) {
    // Compressed data goes at MAX_HEADER; the header is written just
    // before it once its length is known.
    const out = into ?? Buffer.allocUnsafe(MAX_HEADER + vlen);
    const zlen = lz4Compress(src, RESERVE, RESERVE + vlen, out, MAX_HEADER, MAX_HEADER + vlen - 1);
    if (zlen > 0) {
      const flen = zlen + 1 + uvarintSize(vlen);
      const start = MAX_HEADER - (1 + uvarintSize(Math.floor(flen / 16)) + 1 + uvarintSize(vlen));
      let o = start;
      out[o++] = (type << 4) | (flen & 0xf) | COMPRESSED;
      o = putUvarint(out, o, Math.floor(flen / 16));
      out[o++] = COMPRESSION_LZ4;
      putUvarint(out, o, vlen);
      return { frame: out.subarray(start, MAX_HEADER + zlen), inPlace: false };
    }
  }
  const start = RESERVE - (1 + uvarintSize(Math.floor(vlen / 16)));
  src[start] = (type << 4) | (vlen & 0xf);
  putUvarint(src, start + 1, Math.floor(vlen / 16));
  return { frame: src.subarray(start, RESERVE + vlen), inPlace: true };
}
