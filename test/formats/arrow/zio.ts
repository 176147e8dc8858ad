// Helpers for the ported reference ztests: ZSON in, a format's bytes in
// between, ZSON out, as `zq -i X` / `zq -f X` pipelines do.

import { TypeContext } from '../../../src/zed/context';
import { Value } from '../../../src/zed/value';
import { BufferSink, Format, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { parseValues, zsonFormat } from '../../../src/formats/zson';

/** The values of a ZSON text. */
export function zson(text: string, ctx = new TypeContext()): Value[] {
  return parseValues(ctx, text);
}

/** Values as the ZSON writer prints them (pretty 4 is `zq -Z`, 0 is `zq -z`). */
export async function toZson(vals: Value[], pretty: number): Promise<string> {
  const sink = new BufferSink();
  const w = zsonFormat.newWriter!(sink, { pretty });
  await w.write(vals);
  await w.close();
  return sink.text();
}

/** `zq -f format`: the bytes the format's writer makes of the values. */
export async function encode(format: Format, vals: Value[]): Promise<Buffer> {
  const sink = new BufferSink();
  const w = format.newWriter!(sink, {});
  await w.write(vals);
  await w.close();
  return sink.bytes();
}

/** `zq -i format`: the values the format's reader finds in the bytes. */
export async function decode(
  format: Format,
  bytes: Buffer,
  ctx = new TypeContext(),
  chunk?: number,
): Promise<Value[]> {
  return readAll(format.newReader!(sourceFromBuffer(bytes, chunk), { ctx }));
}

/** The message of the error a promise rejects with. */
export async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  return '(no error)';
}
