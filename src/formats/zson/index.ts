// ZSON, the reference's text format: the format entry and the helpers the
// rest of zlake uses to turn single values and types into text and back.

import { Format, FormatError } from '../io';
import { TypeContext } from '../../zed/context';
import { Type } from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder, readUvarint, uv } from '../../zed/zcode';
import { AnalysisError, Analyzer } from './analyzer';
import { Formatter } from './formatter';
import { ParseError, Parser } from './parser';
import { newReader } from './reader';
import { newWriter } from './writer';

export { Formatter } from './formatter';
export { ZsonReader, readerLimits } from './reader';
export { ZsonWriter } from './writer';
export type { ZsonWriterOptions } from './writer';

export const zsonFormat: Format = {
  name: 'zson',
  mimeTypes: ['application/x-zson'],
  newReader,
  newWriter,
};

function formatError(e: unknown, pos: number, text: Buffer): never {
  // The parser bounds nesting; a stack overflow is a last line of defence.
  if (e instanceof RangeError)
    throw new FormatError('zson', 'parse error: value nested too deeply', pos, 1);
  if (!(e instanceof ParseError || e instanceof AnalysisError)) throw e;
  if (e instanceof ParseError) pos = e.pos;
  let line = 1;
  for (let i = text.indexOf(10); i >= 0 && i < pos; i = text.indexOf(10, i + 1)) line++;
  throw new FormatError('zson', e.message, pos, line);
}

/** Every value in a ZSON text. Throws a FormatError on malformed text. */
export function parseValues(ctx: TypeContext, text: string): Value[] {
  const src = Buffer.from(text, 'utf8');
  const p = new Parser();
  p.reset(src, 0, src.length, true);
  const b = new Builder();
  const a = new Analyzer(ctx, b);
  a.src = src;
  const types: Type[] = [];
  const starts: number[] = [];
  for (;;) {
    const at = p.pos;
    try {
      const node = p.parseTop();
      if (node === null) break;
      starts.push(b.len);
      types.push(a.convert(node));
    } catch (e) {
      formatError(e, at, src);
    }
  }
  const data = b.copy();
  return types.map((t, i) => {
    const tag = readUvarint(data, starts[i]);
    return new Value(t, data, uv.end, tag - 1);
  });
}

/** The one value in a ZSON text. */
export function parseValue(ctx: TypeContext, text: string): Value {
  const vals = parseValues(ctx, text);
  if (vals.length !== 1) {
    throw new FormatError(
      'zson',
      vals.length === 0 ? 'ZSON syntax error' : 'ZSON text holds more than one value',
      0,
      1,
    );
  }
  return vals[0];
}

/** The type written in ZSON type syntax (e.g. `{a:int64,b:[string]}`). */
export function parseType(ctx: TypeContext, text: string): Type {
  const src = Buffer.from(text, 'utf8');
  const p = new Parser();
  p.reset(src, 0, src.length, true);
  const a = new Analyzer(ctx, new Builder(16));
  try {
    const node = p.parseTypeTop();
    p.skipSpace();
    if (p.pos < src.length) throw new ParseError('ZSON syntax error', p.pos);
    return a.convertType(node);
  } catch (e) {
    formatError(e, 0, src);
  }
}

const formatters: Formatter[] = [];

/** A value's ZSON text as the writer prints it on its own (without the newline). */
export function formatValue(v: Value, pretty = 0): string {
  const f = (formatters[pretty] ??= new Formatter({ pretty }));
  f.out.len = 0;
  f.format(v.type, v.buf, v.off, v.len);
  const s = f.out.toString();
  f.out.len = 0;
  return s;
}
