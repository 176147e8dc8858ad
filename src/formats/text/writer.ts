// The text writer: one line per value. Records are flattened and their
// columns tab-separated (a null time as "-"); other values are written as
// the table cells would show them.

import { Kind } from '../../zed/types';
import { Value } from '../../zed/value';
import { ByteSink, ValueWriter, WriterOptions } from '../io';
import { TextBuffer } from '../textbuffer';
import { appendValue, ColumnFormatter, formatError } from './format';

/** Bytes gathered before they go to the sink. */
const FLUSH_AT = 64 * 1024;

export class TextWriter implements ValueWriter {
  private out = new TextBuffer(FLUSH_AT + 4096);
  private columns = new ColumnFormatter('-');

  constructor(
    private sink: ByteSink,
    _opts?: WriterOptions,
  ) {}

  async write(vals: Value[]): Promise<void> {
    const out = this.out;
    for (const v of vals) {
      const start = out.len;
      try {
        if (v.type.kind === Kind.Record) this.columns.appendRow(out, v);
        else appendValue(out, v.type, v.buf, v.off, v.len);
      } catch (e) {
        // Nothing of a value that cannot be written.
        out.len = start;
        throw formatError('text', e);
      }
      out.byte(10);
      if (out.len >= FLUSH_AT) await this.sink.write(out.take());
    }
  }

  async close(): Promise<void> {
    if (this.out.len > 0) await this.sink.write(this.out.take());
    await this.sink.end();
  }
}
