// A bounds check of an Arrow IPC stream's framing and flatbuffer metadata
// before apache-arrow parses it. apache-arrow trusts every length in the
// flatbuffers; a corrupt vector length makes it loop for billions of
// iterations over out-of-range reads. Checking that each message, table,
// vector and string lies inside its buffer (Message.fbs / Schema.fbs
// layouts) turns such input into a clean error.

import { CorruptArrowData } from './decode';

function fail(what: string): never {
  throw new CorruptArrowData(`corrupt IPC stream: ${what}`);
}

/** Bounds-checked reads of one flatbuffer. */
class Flat {
  private dv: DataView;

  constructor(private buf: Uint8Array) {
    this.dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  private u32(p: number): number {
    if (p < 0 || p + 4 > this.buf.length) fail('offset past metadata');
    return this.dv.getUint32(p, true);
  }

  private u16(p: number): number {
    if (p < 0 || p + 2 > this.buf.length) fail('offset past metadata');
    return this.dv.getUint16(p, true);
  }

  /** The root table's position. */
  root(): number {
    return this.table(this.u32(0));
  }

  /** Checks the table at t and its vtable; returns t. */
  table(t: number): number {
    const vt = t - this.dv.getInt32(this.checkPos(t, 4), true);
    const vsize = this.u16(vt);
    if (vsize < 4 || vsize % 2 !== 0 || vt + vsize > this.buf.length) fail('bad vtable');
    const osize = this.u16(vt + 2);
    if (t + osize > this.buf.length) fail('table past metadata');
    return t;
  }

  private checkPos(p: number, n: number): number {
    if (p < 0 || p + n > this.buf.length) fail('offset past metadata');
    return p;
  }

  /** Position of field i of table t, or -1 when absent. */
  field(t: number, i: number): number {
    const vt = t - this.dv.getInt32(t, true);
    const vsize = this.u16(vt);
    const at = 4 + 2 * i;
    if (at >= vsize) return -1;
    const off = this.u16(vt + at);
    return off === 0 ? -1 : t + off;
  }

  /** The table a field points to, or -1. */
  sub(t: number, i: number): number {
    const p = this.field(t, i);
    if (p < 0) return -1;
    return this.table(p + this.u32(p));
  }

  /** The element count of a vector (or string) field, checking its extent; start in `at`. */
  vector(t: number, i: number, elemSize: number): { at: number; n: number } | undefined {
    const p = this.field(t, i);
    if (p < 0) return undefined;
    const v = p + this.u32(p);
    const n = this.u32(v);
    if (v + 4 + n * elemSize > this.buf.length) fail('vector past metadata');
    return { at: v + 4, n };
  }

  /** The table at element k of a vector of tables. */
  elem(vec: { at: number }, k: number): number {
    const p = vec.at + 4 * k;
    return this.table(p + this.u32(p));
  }

  byte(t: number, i: number): number {
    const p = this.field(t, i);
    return p < 0 ? 0 : this.buf[this.checkPos(p, 1)];
  }

  long(t: number, i: number): number {
    const p = this.field(t, i);
    if (p < 0) return 0;
    this.checkPos(p, 8);
    return Number(this.dv.getBigInt64(p, true));
  }
}

const HEADER_SCHEMA = 1;
const HEADER_DICTIONARY = 2;
const HEADER_RECORD_BATCH = 3;
const TYPE_UNION = 14;

function checkKeyValues(f: Flat, t: number, i: number): void {
  const kv = f.vector(t, i, 4);
  if (!kv) return;
  for (let k = 0; k < kv.n; k++) {
    const e = f.elem(kv, k);
    f.vector(e, 0, 1);
    f.vector(e, 1, 1);
  }
}

function checkField(f: Flat, t: number, depth: number): void {
  if (depth > 64) fail('fields nested too deeply');
  f.vector(t, 0, 1); // name
  const typ = f.sub(t, 3);
  if (typ >= 0 && f.byte(t, 2) === TYPE_UNION) f.vector(typ, 1, 4); // typeIds
  const dict = f.sub(t, 4);
  if (dict >= 0) f.sub(dict, 1); // indexType
  const kids = f.vector(t, 5, 4);
  if (kids) for (let k = 0; k < kids.n; k++) checkField(f, f.elem(kids, k), depth + 1);
  checkKeyValues(f, t, 6);
}

function checkRecordBatch(f: Flat, t: number): void {
  if (f.long(t, 0) < 0) fail('negative batch length');
  f.vector(t, 1, 16); // FieldNode structs
  f.vector(t, 2, 16); // Buffer structs (apache-arrow clamps them to the body)
  f.sub(t, 3); // compression
  f.vector(t, 4, 8); // variadic buffer counts
}

/** Checks a whole IPC stream's messages; throws CorruptArrowData. */
export function checkIpcStream(buf: Uint8Array): void {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let p = 0;
  let first = true;
  while (p < buf.length) {
    if (p + 4 > buf.length) fail('truncated message length');
    let len = dv.getInt32(p, true);
    p += 4;
    if (len === -1) {
      // Continuation marker, then the length.
      if (p + 4 > buf.length) fail('truncated message length');
      len = dv.getInt32(p, true);
      p += 4;
    }
    if (len === 0) return; // end of stream
    if (len < 0 || p + len > buf.length) fail('message length past end of input');
    const f = new Flat(buf.subarray(p, p + len));
    p += len;
    const msg = f.root();
    const headerType = f.byte(msg, 1);
    const header = f.sub(msg, 2);
    const bodyLength = f.long(msg, 3);
    checkKeyValues(f, msg, 4);
    if (bodyLength < 0 || p + bodyLength > buf.length) fail('message body past end of input');
    p += bodyLength;
    if (first && headerType !== HEADER_SCHEMA) fail('stream does not start with a schema');
    first = false;
    if (header < 0) fail('message without header');
    switch (headerType) {
      case HEADER_SCHEMA: {
        const fields = f.vector(header, 1, 4);
        if (fields) for (let k = 0; k < fields.n; k++) checkField(f, f.elem(fields, k), 0);
        checkKeyValues(f, header, 2);
        f.vector(header, 3, 8);
        break;
      }
      case HEADER_RECORD_BATCH:
        checkRecordBatch(f, header);
        break;
      case HEADER_DICTIONARY: {
        const data = f.sub(header, 1);
        if (data >= 0) checkRecordBatch(f, data);
        break;
      }
      default:
        fail(`unknown message type ${headerType}`);
    }
  }
}
