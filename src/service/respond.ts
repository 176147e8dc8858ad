// Writing responses: a Zed value in the negotiated format, or an error as
// the reference's JSON body.

import { Response } from 'express';
import { BufferSink, ValueWriter } from '../formats/io';
import { formatByName } from '../formats/registry';
import { Value } from '../zed/value';
import { errorResponse, goJSON } from './errors';
import { formatToMediaType } from './mime';

/**
 * A writer of format to sink. "json" outside the query endpoint is one
 * JSON value per line, as the reference's general-purpose writer has it
 * (only query results are one JSON array).
 */
export function responseWriter(format: string, sink: BufferSink): ValueWriter {
  const f = formatByName(format === 'json' ? 'ndjson' : format);
  if (!f?.newWriter) throw new Error(`unknown format type: ${format}`);
  return f.newWriter(sink, { pretty: 0 });
}

/** The bytes of values written in format. */
export async function encodeValues(format: string, vals: Value[]): Promise<Buffer> {
  const sink = new BufferSink();
  const w = responseWriter(format, sink);
  await w.write(vals);
  await w.close();
  return sink.bytes();
}

/** Answers with a value (status 200) in the response's format. */
export async function respondValue(res: Response, format: string, v: Value): Promise<void> {
  const body = await encodeValues(format, [v]);
  res.status(200);
  res.setHeader('Content-Type', formatToMediaType(format));
  res.end(body);
}

/** Where an error's details go besides the client (the access log). */
export interface ErrorSink {
  (status: number, err: unknown): void;
}

/**
 * Answers with an error, unless the response has already begun (then the
 * connection is cut so the client sees an incomplete response).
 */
export function respondError(res: Response, err: unknown, onError?: ErrorSink): void {
  const { status, body } = errorResponse(err);
  onError?.(status, err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(status === 499 ? 400 : status);
  res.setHeader('Content-Type', 'application/json');
  res.end(goJSON(body));
}
