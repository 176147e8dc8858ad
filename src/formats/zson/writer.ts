// The ZSON writer: one value per line (pretty 0) or indented (pretty > 0),
// each followed by a newline, as the reference's zsonio writer does.

import { ByteSink, ValueWriter, WriterOptions } from '../io';
import { Value } from '../../zed/value';
import { Formatter } from './formatter';

export interface ZsonWriterOptions extends WriterOptions {
  /** Named types whose names match persist across values (zq -persist). */
  persist?: RegExp;
}

const FLUSH_AT = 1 << 16;

export class ZsonWriter implements ValueWriter {
  private readonly formatter: Formatter;

  constructor(
    private readonly sink: ByteSink,
    opts: ZsonWriterOptions = {},
  ) {
    this.formatter = new Formatter({ pretty: opts.pretty ?? 0, persist: opts.persist });
  }

  async write(vals: Value[]): Promise<void> {
    const f = this.formatter;
    const out = f.out;
    for (let i = 0; i < vals.length; i++) {
      const v = vals[i];
      f.format(v.type, v.buf, v.off, v.len);
      out.byte(0x0a);
      if (out.len >= FLUSH_AT) await this.sink.write(out.take());
    }
    if (out.len > 0) await this.sink.write(out.take());
  }

  async close(): Promise<void> {
    const out = this.formatter.out;
    if (out.len > 0) await this.sink.write(out.take());
    await this.sink.end();
  }
}

export function newWriter(sink: ByteSink, opts: ZsonWriterOptions): ValueWriter {
  return new ZsonWriter(sink, opts);
}
