// Reading requests: bodies (with Content-Encoding undone), the JSON/ZSON/
// ZNG/... payloads of the control endpoints, the Zed-Commit header, and
// query parameters, each failing with the reference's invalid-kind text.

import { Request } from 'express';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ByteSource, sourceFromBuffer } from '../formats/io';
import { valueToJS } from '../formats/json';
import { formatByName } from '../formats/registry';
import { parseValue } from '../formats/zson';
import { CommitMessage } from '../lake';
import { invalid } from '../lake/errors';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { HttpError } from './errors';
import { requestFormat } from './mime';

/** Most bytes a control request's body may hold (loads stream and have no limit). */
export const MAX_CONTROL_BODY = 16 * 1024 * 1024;

/**
 * The request body as a stream with any Content-Encoding (gzip, deflate,
 * br) undone. An encoding we cannot undo is refused with 415.
 */
export function bodyStream(req: Request): Readable {
  const enc = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity') return req;
  let dec;
  if (enc === 'gzip' || enc === 'x-gzip') dec = createGunzip();
  else if (enc === 'deflate') dec = createInflate();
  else if (enc === 'br') dec = createBrotliDecompress();
  else throw new HttpError('invalid', `unsupported Content-Encoding: ${enc}`, 415);
  req.on('error', (err) => dec.destroy(err));
  return req.pipe(dec);
}

/** An error decompressing a body: the client's bad input, not ours. */
export function isZlibError(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

/**
 * A ByteSource over a stream in flowing mode, paused between reads (so a
 * slow consumer slows the sender). Unlike an async iterator it leaves the
 * stream in a state where resume() drains it, which answering an error
 * before the body is read needs. A stream that closes before its end (the
 * client went away) is an error.
 */
class FlowingSource implements ByteSource {
  private chunks: Buffer[] = [];
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private discarding = false;

  constructor(private s: Readable) {
    s.pause();
    s.on('data', (c: Buffer) => {
      if (this.discarding) return;
      this.chunks.push(c);
      s.pause();
      this.notify();
    });
    s.on('end', () => {
      this.ended = true;
      this.notify();
    });
    s.on('error', (err: Error) => {
      this.failure ??= err;
      this.notify();
    });
    s.on('close', () => {
      if (!this.ended) this.failure ??= new Error('request body ended early: client disconnected');
      this.notify();
    });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** Ends reading with an error (the body broke a limit). */
  fail(e: Error): void {
    this.failure ??= e;
    this.chunks = [];
    this.notify();
  }

  /** Drops the rest of the stream (nobody will read it). */
  discard(): void {
    this.discarding = true;
    this.chunks = [];
    this.s.resume();
  }

  async read(): Promise<Buffer | null> {
    for (;;) {
      const c = this.chunks.shift();
      if (c) return c;
      if (this.failure) throw this.failure;
      if (this.ended) return null;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.s.resume();
      });
    }
  }
}

const sources = new WeakMap<Request, FlowingSource>();

const bodyLimits = new WeakMap<Request, number>();

/** Limits the bytes a request may send (zlake serve -limit.body); 413 past it. */
export function limitBody(req: Request, bytes: number): void {
  bodyLimits.set(req, bytes);
}

/** The body limit's error. */
export function bodyTooLarge(limit: number): HttpError {
  return new HttpError('invalid', `request body exceeds the limit of ${limit} bytes`, 413);
}

/** A ByteSource over the decoded body. */
export function bodySource(req: Request): ByteSource {
  const src = new FlowingSource(bodyStream(req));
  sources.set(req, src);
  const limit = bodyLimits.get(req);
  if (limit !== undefined) {
    // Counted as sent (before any decoding), as the limit is on the wire.
    let n = 0;
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (n > limit) src.fail(bodyTooLarge(limit));
    });
  }
  return src;
}

/** Bytes of an unread request body read and dropped before an error answer. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * Reads and drops what is left of a request body (up to DRAIN_LIMIT bytes
 * or 5 s), so an answer given before the body was read reaches a client
 * that is still sending, instead of a connection reset.
 */
export function drainBody(req: Request): Promise<void> {
  sources.get(req)?.discard();
  if (req.readableEnded || req.destroyed || req.complete) return Promise.resolve();
  return new Promise((resolve) => {
    let n = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      resolve();
    };
    const onData = (c: Buffer) => {
      n += c.length;
      if (n > DRAIN_LIMIT) done();
    };
    const timer = setTimeout(done, 5000);
    req.on('data', onData);
    req.once('end', done);
    req.once('error', done);
    req.once('close', done);
    req.resume();
  });
}

/** The whole decoded body, refusing bodies over limit bytes. */
export async function readBody(req: Request, limit = MAX_CONTROL_BODY): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  const src = bodySource(req);
  try {
    for (let c = await src.read(); c; c = await src.read()) {
      n += c.length;
      if (n > limit) throw new HttpError('invalid', `request body exceeds ${limit} bytes`, 413);
      chunks.push(c);
    }
  } catch (e) {
    if (isZlibError(e)) throw invalid(`request body: ${(e as Error).message}`);
    throw e;
  }
  return Buffer.concat(chunks);
}

/** A JSON-like view of a request payload's first value. */
export type Payload = Record<string, unknown>;

/**
 * Reads the request payload as the reference does: in the format
 * Content-Type names (ZSON by default), taking its first value. An empty
 * body is an empty payload. The value is returned in its JSON form
 * (records as objects, KSUIDs as "0x..." text).
 */
export async function readPayload(req: Request): Promise<Payload> {
  const format = requestFormat(req.headers['content-type'], 'zson');
  const body = await readBody(req);
  const f = formatByName(format);
  if (!f?.newReader) throw invalid(`unsupported MIME type: ${req.headers['content-type']}`);
  if (body.length === 0 || body.toString('latin1').trim() === '') return {};
  let first: Value | undefined;
  try {
    const r = f.newReader(sourceFromBuffer(body), { ctx: new TypeContext() });
    const batch = await r.read();
    await r.close?.();
    first = batch?.[0];
  } catch (e) {
    throw invalid((e as Error).message);
  }
  if (!first) return {};
  const js = valueToJS(first);
  if (js === null || typeof js !== 'object' || Array.isArray(js))
    throw invalid('request payload must be a record');
  return js as Payload;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' ? 'number' : typeof v;
}

/** A string field ("" when absent or null). */
export function stringField(p: Payload, name: string): string {
  const v = p[name];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string')
    throw invalid(`field "${name}": expected a string, got ${describe(v)}`);
  return v;
}

/** An integer field (0 when absent or null). */
export function intField(p: Payload, name: string): number {
  const v = p[name];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw invalid(`field "${name}": expected an integer, got ${describe(v)}`);
  return v;
}

/** A boolean field (dflt when absent or null). */
export function boolField(p: Payload, name: string, dflt: boolean): boolean {
  const v = p[name];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean')
    throw invalid(`field "${name}": expected a boolean, got ${describe(v)}`);
  return v;
}

/** An array-of-strings field ([] when absent or null). */
export function stringsField(p: Payload, name: string): string[] {
  const v = p[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
    throw invalid(`field "${name}": expected an array of strings`);
  return v as string[];
}

/** A record field ({} when absent or null). */
export function recordField(p: Payload, name: string): Payload {
  const v = p[name];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v))
    throw invalid(`field "${name}": expected a record, got ${describe(v)}`);
  return v as Payload;
}

/**
 * The Zed-Commit header: JSON {"author", "body", "meta"} (keys matched
 * without regard to case, as Go's JSON decoder does; "message" is taken
 * for "body" too). meta is ZSON text, parsed in ctx, only when the
 * operation takes it (load and delete-where).
 */
export function commitMessage(req: Request, ctx?: TypeContext): CommitMessage {
  const header = req.headers['zed-commit'];
  const text = Array.isArray(header) ? header[0] : header;
  if (!text) return {};
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw invalid(
      `load endpoint encountered invalid JSON in Zed-Commit header: ${(e as Error).message}`,
    );
  }
  if (j === null) return {};
  if (typeof j !== 'object' || Array.isArray(j)) {
    throw invalid(
      `load endpoint encountered invalid JSON in Zed-Commit header: json: cannot unmarshal ${describe(j)} into Go value of type api.CommitMessage`,
    );
  }
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(j)) fields[k.toLowerCase()] = v;
  const str = (name: string, key: string): string | undefined => {
    const v = fields[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      throw invalid(
        `load endpoint encountered invalid JSON in Zed-Commit header: json: cannot unmarshal ${describe(v)} into Go struct field CommitMessage.${name} of type string`,
      );
    }
    return v;
  };
  const msg: CommitMessage = {};
  const author = str('author', 'author');
  const body = str('body', 'body') ?? str('body', 'message');
  const meta = str('meta', 'meta');
  if (author) msg.author = author;
  if (body) msg.message = body;
  if (meta && ctx) {
    try {
      msg.meta = parseValue(ctx, meta);
    } catch {
      throw invalid('invalid commit metadata in request');
    }
  }
  return msg;
}

/**
 * A boolean query parameter as Go's strconv.ParseBool reads it (absent
 * or empty is false), with the reference's error text.
 */
export function boolParam(req: Request, name: string): boolean {
  const raw = req.query[name];
  const s = Array.isArray(raw) ? String(raw[0]) : raw === undefined ? '' : String(raw);
  switch (s) {
    case '':
    case '0':
    case 'f':
    case 'F':
    case 'false':
    case 'FALSE':
    case 'False':
      return false;
    case '1':
    case 't':
    case 'T':
    case 'true':
    case 'TRUE':
    case 'True':
      return true;
  }
  throw invalid(
    `invalid query param ${JSON.stringify(s)}: strconv.ParseBool: parsing ${JSON.stringify(s)}: invalid syntax`,
  );
}

/** A query parameter as a string ("" when absent). */
export function stringParam(req: Request, name: string): string {
  const raw = req.query[name];
  if (raw === undefined) return '';
  return Array.isArray(raw) ? String(raw[0]) : String(raw);
}
