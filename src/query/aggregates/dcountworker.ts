// The body of a dcount worker thread (dcountaside.ts): holds one
// summarize's dcount column (the same DCountColumn the query's thread
// would run) and applies the codes the query's thread sends it, so that
// sketch upkeep, the costly part of a high-cardinality dcount, runs on
// another core while the query's thread groups the next rows. Messages
// arrive in order; the two that need an answer (estimates, partials)
// answer on their own port and wake the waiting thread through a shared
// word. An error is kept and given with the next answer.

import { MessagePort, parentPort } from 'node:worker_threads';
import { TypeBytes } from '../../zed/types';
import { Value } from '../../zed/value';
import { DCountColumn } from './dcount';
import { rowsCodes } from './metrowasm';
import type { AsideAnswer, AsideOp } from './dcountaside';

/** The most bytes of arrays a column keeps for the next one. */
const KEEP_BYTES = 64 << 20;

let col = new DCountColumn();
let reply: MessagePort | null = null;
let shared: Int32Array | null = null;
let failed: string | null = null;
/** The codes of a rows message's rows. */
let codes = new Uint32Array(0);

/** Adds groups up to size (adding a group touches no other group's state). */
function grow(size: number): void {
  while (col.size < size) col.add();
}

/** Posts an answer, then counts it in the shared word and wakes the waiting thread. */
function answer(a: AsideAnswer, transfer: ArrayBuffer[]): void {
  reply!.postMessage(a, transfer);
  Atomics.add(shared!, 0, 1);
  Atomics.notify(shared!, 0);
}

/** Tells the asking thread, by a message it may await, that an ask's first answer is out. */
function ready(): void {
  parentPort!.postMessage(null);
}

function apply(op: AsideOp): void {
  switch (op.op) {
    case 'codes': {
      grow(op.size);
      const p = op.pairs;
      for (let i = 0, e = 2 * op.n; i < e; i += 2) col.consumeCode(p[i], p[i + 1]);
      return;
    }
    case 'rows': {
      grow(op.size);
      const n = op.grp.length;
      if (codes.length < n) codes = new Uint32Array(n);
      rowsCodes(op.bytes, op.starts, 0, n, op.typeId, codes);
      col.consumeCodes(op.grp, 0, n, codes);
      return;
    }
    case 'partial': {
      grow(op.size);
      const b = Buffer.from(op.bytes.buffer, op.bytes.byteOffset, op.bytes.byteLength);
      col.consumePartial(op.g, new Value(TypeBytes, b, 0, b.length));
      return;
    }
    case 'keep':
      grow(op.size);
      col.keep(Array.from(op.groups));
      return;
    case 'reset':
      // The arrays are kept for the next column (growing them again cost
      // the worker a tenth of its time), unless they grew large.
      if (col.capacity() > KEEP_BYTES) col = new DCountColumn();
      else col.clear();
      failed = null;
      return;
    default:
      return;
  }
}

/** Answers an estimates or partials ask: as many answers as asked for, errors included. */
function respond(op: AsideOp & { op: 'estimates' | 'partials' }): void {
  const n = op.op === 'estimates' ? Math.ceil(op.size / op.step) : 1;
  let given = 0;
  try {
    if (failed !== null) throw new Error(failed);
    grow(op.size);
    if (op.op === 'estimates') {
      for (let from = 0; from < op.size; from += op.step) {
        const est = new Float64Array(Math.min(op.step, op.size - from));
        for (let i = 0; i < est.length; i++) est[i] = col.estimate(from + i);
        answer({ from, est }, [est.buffer]);
        if (given++ === 0) ready();
      }
      if (given === 0) ready();
      return;
    }
    const parts = [];
    const ends = new Int32Array(op.size);
    let len = 0;
    for (let g = 0; g < op.size; g++) {
      const b = col.partialBytes(g);
      parts.push(b);
      len += b.length;
      ends[g] = len;
    }
    const bytes = new Uint8Array(len);
    let o = 0;
    for (const b of parts) {
      bytes.set(b, o);
      o += b.length;
    }
    answer({ bytes, ends }, [bytes.buffer, ends.buffer]);
    ready();
  } catch (e) {
    const first = given === 0;
    for (; given < n; given++) answer({ error: (e as Error).message }, []);
    if (first) ready();
  }
}

parentPort!.on('message', (op: AsideOp) => {
  switch (op.op) {
    case 'init':
      reply = op.reply;
      shared = new Int32Array(op.shared);
      return;
    case 'estimates':
    case 'partials':
      return respond(op);
  }
  try {
    if (failed === null || op.op === 'reset') apply(op);
  } catch (e) {
    failed = (e as Error).message;
  } finally {
    if (op.op === 'codes' || op.op === 'rows') {
      // Counted even when it failed: the sender waits on the count.
      Atomics.add(shared!, 1, 1);
      Atomics.notify(shared!, 1);
    }
  }
});
