// The body of a column-decoding worker thread (decodepool.ts): decodes one
// primitive column of a VNG copy per message, from the stored bytes of its
// segments that the main thread fetched and packed (LZ4 decompression and
// the values' offsets, and the column's dictionary when asked), and
// transfers the typed arrays back. The decode is the one the main thread
// runs in-thread (formats/vng/vectors.ts), so both give the same columns
// and the same errors.

import { parentPort } from 'node:worker_threads';
import { ChunkSource } from '../formats/vng/project';
import { decodePrimitive } from '../formats/vng/vectors';
import { VngError } from '../formats/vng/reader';
import { buildDict } from '../zed/vector';
import type { DecodeReply, DecodeRequest } from './decodepool';

/** Whether a typed array is alone in its ArrayBuffer (so transferring it moves nothing else). */
function owns(a: Uint8Array | Int32Array): boolean {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength;
}

/** A's contents in an ArrayBuffer of their own. */
function alone<T extends Uint8Array | Int32Array>(a: T): T {
  return owns(a) ? a : (a.slice() as T);
}

function decode(req: DecodeRequest): { reply: DecodeReply; transfer: ArrayBuffer[] } {
  try {
    const bytes = Buffer.from(req.bytes);
    const src = new ChunkSource([{ offset: 0, buf: bytes }], bytes.length);
    const data = decodePrimitive(src, req.segs, req.n);
    const buf = alone(new Uint8Array(data.buf.buffer, data.buf.byteOffset, data.buf.byteLength));
    const off = alone(data.off);
    const transfer: ArrayBuffer[] = [buf.buffer as ArrayBuffer, off.buffer as ArrayBuffer];
    let dict: { codes: Int32Array; rows: Int32Array; slots: Int32Array } | null = null;
    if (req.dict) {
      const d = buildDict(data, null);
      dict = { codes: alone(d.codes), rows: alone(d.rows), slots: alone(d.slots) };
      transfer.push(
        dict.codes.buffer as ArrayBuffer,
        dict.rows.buffer as ArrayBuffer,
        dict.slots.buffer as ArrayBuffer,
      );
    }
    return { reply: { id: req.id, buf, off, dict }, transfer };
  } catch (e) {
    const vng = e instanceof VngError;
    return {
      reply: {
        id: req.id,
        error: vng ? (e as Error).message : String((e as Error).stack ?? e),
        vng,
      },
      transfer: [],
    };
  }
}

parentPort!.on('message', (req: DecodeRequest) => {
  const { reply, transfer } = decode(req);
  parentPort!.postMessage(reply, transfer);
});
