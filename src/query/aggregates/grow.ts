// Growing the typed arrays aggregate columns keep their per-group state
// (and collect and union their values' places) in.

/** A copy of a with twice the room. */
export function growFloat64(a: Float64Array): Float64Array<ArrayBuffer> {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

export function growInt8(a: Int8Array): Int8Array<ArrayBuffer> {
  const b = new Int8Array(a.length * 2);
  b.set(a);
  return b;
}

export function growUint8(a: Uint8Array): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(a.length * 2);
  b.set(a);
  return b;
}

export function growUint32(a: Uint32Array): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}

export function growInt32(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
