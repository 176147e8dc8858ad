// The body of the ZNG writer's compression worker (compresspool.ts): builds
// one values frame per message from the values in a slot of shared memory,
// with the writer's own frame builder and LZ4 codec, into the slot's
// output (or, uncompressed, in place), writes where the frame is into the
// slot's control words and marks it done. A slot's memory comes with its
// first message.

import { parentPort } from 'node:worker_threads';
import { CompressRequest, Ctl, DONE } from './compresspool';
import { buildValuesFrame } from './valuesframe';

interface Slot {
  values: Buffer;
  out: Buffer;
  ctl: Int32Array;
}

const slots = new Map<number, Slot>();

parentPort!.on('message', (req: CompressRequest) => {
  if (req.mem) {
    slots.set(req.slot, {
      values: Buffer.from(req.mem.values),
      out: Buffer.from(req.mem.out),
      ctl: new Int32Array(req.mem.ctl),
    });
  }
  const slot = slots.get(req.slot);
  if (!slot) {
    parentPort!.postMessage({ id: req.id, error: `no memory for slot ${req.slot}` });
    return;
  }
  const ctl = slot.ctl;
  try {
    const { frame, inPlace } = buildValuesFrame(slot.values, req.vlen, true, slot.out);
    ctl[Ctl.InPlace] = inPlace ? 1 : 0;
    ctl[Ctl.Start] = frame.byteOffset;
    ctl[Ctl.Len] = frame.length;
    Atomics.store(ctl, Ctl.State, DONE);
    // A thread waiting on the frame (not polling) hears of it by message.
    parentPort!.postMessage({ id: req.id });
  } catch (e) {
    // The slot stays BUSY (as the writer set it): the error comes by message.
    parentPort!.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) });
  }
});
