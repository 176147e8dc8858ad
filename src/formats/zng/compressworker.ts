// The body of the ZNG writer's compression worker (compresspool.ts): builds
// one values frame per message from the values the writer copied into a
// slot of shared memory, with the writer's own frame builder and LZ4
// codec, into the slot's output (or, uncompressed, in place), writes where
// the frame is into the slot's control words and marks it done; only an
// error is answered by message.

import { parentPort } from 'node:worker_threads';
import { BUSY, CompressRequest, Ctl, DONE } from './compresspool';
import { buildValuesFrame } from './valuesframe';

parentPort!.on('message', (req: CompressRequest) => {
  const ctl = new Int32Array(req.ctl);
  try {
    const values = Buffer.from(req.values);
    const { frame, inPlace } = buildValuesFrame(values, req.vlen, true, Buffer.from(req.out));
    ctl[Ctl.InPlace] = inPlace ? 1 : 0;
    ctl[Ctl.Start] = frame.byteOffset;
    ctl[Ctl.Len] = frame.length;
    Atomics.store(ctl, Ctl.State, DONE);
    // A thread waiting on the frame (not polling) hears of it by message.
    parentPort!.postMessage({ id: req.id });
  } catch (e) {
    Atomics.store(ctl, Ctl.State, BUSY);
    parentPort!.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) });
  }
});
