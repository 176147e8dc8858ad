// ZNG framing constants (docs/formats/zng.md §2, docs/formats/compression.md).
//
// A frame is <code><uvarint><payload>: the code byte holds a version bit
// (must be 0), a compressed bit, a 2-bit frame type and the low 4 bits of
// the payload length; the uvarint holds the rest of the length (length >> 4).
// A compressed payload is <format byte><uvarint uncompressed size><data>.

export const FrameType = {
  Types: 0,
  Values: 1,
  Control: 2,
} as const;

/** The end-of-stream marker: type IDs restart at 30 after it. */
export const EOS = 0xff;

/** Frame code bit: the payload is compressed. */
export const COMPRESSED = 0x40;
/** Frame code bit: a future format version (readers reject it). */
export const VERSION_BIT = 0x80;

/** The encoding byte that starts a control frame's payload. */
export const ControlFormat = {
  ZNG: 0,
  JSON: 1,
  ZSON: 2,
  String: 3,
  Binary: 4,
} as const;

/** Compression format byte for LZ4 blocks, the only one defined. */
export const COMPRESSION_LZ4 = 0;

/** Typedef codes in a types frame (§2.1). */
export const TypeDef = {
  Record: 0,
  Array: 1,
  Set: 2,
  Map: 3,
  Union: 4,
  Enum: 5,
  Error: 6,
  Named: 7,
} as const;

/** The writer flushes a frame once its types or values reach this many bytes. */
export const DEFAULT_FRAME_THRESHOLD = 512 * 1024;

/** The largest frame payload a reader accepts by default (the reference's). */
export const MAX_FRAME_SIZE = 1024 * 1024 * 1024;

/** The reference's text for a frame or value that does not parse. */
export const MALFORMED = 'malformed zng record';

/** Longest frame header: code, 10-byte length, format byte, 10-byte size. */
export const MAX_HEADER = 22;

/** A control message as carried in a ZNG control frame. */
export class ZngControl {
  constructor(
    /** Encoding of the body (ControlFormat). */
    readonly format: number,
    readonly body: Buffer,
  ) {}
}
