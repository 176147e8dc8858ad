// Helpers shared by the JSON and ZJSON tests.

import { BufferSink, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { JSONReader } from '../../../src/formats/json/reader';
import { JSONArrayWriter, NDJSONWriter } from '../../../src/formats/json/writer';
import { formatType, TypeContext, Value } from '../../../src/zed';

/** Reads JSON text (in chunks of chunkSize bytes) into values. */
export async function readJSON(
  text: string | Buffer,
  ctx = new TypeContext(),
  chunkSize?: number,
): Promise<Value[]> {
  const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return readAll(new JSONReader(sourceFromBuffer(buf, chunkSize), { ctx }));
}

/** The values as NDJSON text. */
export async function ndjson(vals: Value[]): Promise<string> {
  const sink = new BufferSink();
  const w = new NDJSONWriter(sink);
  await w.write(vals);
  await w.close();
  return sink.text();
}

/** The values as one JSON array (the service's application/json). */
export async function jsonArray(vals: Value[]): Promise<string> {
  const sink = new BufferSink();
  const w = new JSONArrayWriter(sink);
  if (vals.length > 0) await w.write(vals);
  await w.close();
  return sink.text();
}

/** The ZSON text of each value's type. */
export function typesOf(vals: Value[]): string[] {
  return vals.map((v) => formatType(v.type));
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function errorOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}
