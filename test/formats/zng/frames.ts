// Walks the frames of a well-formed ZNG stream, for tests that check how a
// stream is framed.

export interface FrameInfo {
  /** The frame code byte. */
  code: number;
  /** Payload length. */
  len: number;
  /** Offset of the payload. */
  off: number;
}

function uvarint(b: Buffer, p: number): [number, number] {
  let v = 0;
  let scale = 1;
  for (;;) {
    const c = b[p++];
    v += (c & 0x7f) * scale;
    scale *= 128;
    if (c < 0x80) return [v, p];
  }
}

/** The frames of a stream (end-of-stream markers skipped). */
export function frames(b: Buffer): FrameInfo[] {
  const out: FrameInfo[] = [];
  for (let p = 0; p < b.length;) {
    const code = b[p++];
    if (code === 0xff) continue;
    const [v, off] = uvarint(b, p);
    const len = v * 16 + (code & 0xf);
    out.push({ code, len, off });
    p = off + len;
  }
  return out;
}

/** The LZ4 blocks of a stream's compressed frames, with their sizes. */
export function compressedBlocks(b: Buffer): { format: number; block: Buffer; size: number }[] {
  return frames(b)
    .filter((f) => (f.code & 0x40) !== 0)
    .map((f) => {
      const [size, start] = uvarint(b, f.off + 1);
      return { format: b[f.off], block: b.subarray(start, f.off + f.len), size };
    });
}
