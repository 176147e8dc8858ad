// The table writer: records flattened to dotted columns and aligned with
// Go's tabwriter rules (cells padded to the widest in their column block
// plus one space). A header line of column names starts the output, and
// again whenever the flat shape changes and after every 1000 rows; the
// rows before each header are aligned on their own. A null time cell is
// empty. Values other than records are an error, as in the reference.

import { Kind } from '../../zed/types';
import { Value } from '../../zed/value';
import { ByteSink, FormatError, ValueWriter, WriterOptions } from '../io';
import { ColumnFormatter, formatError } from '../text/format';
import { TextBuffer } from '../textbuffer';
import { FlatLayout } from '../zeek/flatten';
import { formatValue } from '../zson';
import { TabWriter } from './tabwriter';

/** Rows between repeated headers. */
const ROWS_PER_HEADER = 1000;
/** Bytes gathered before they go to the sink. */
const FLUSH_AT = 64 * 1024;

export class TableWriter implements ValueWriter {
  private table = new TabWriter(0, 1);
  private columns = new ColumnFormatter('');
  private line = new TextBuffer(1024);
  private layout: FlatLayout | undefined;
  private rows = 0;

  constructor(
    private sink: ByteSink,
    _opts?: WriterOptions,
  ) {}

  async write(vals: Value[]): Promise<void> {
    const line = this.line;
    const table = this.table;
    for (const v of vals) {
      if (v.type.kind !== Kind.Record) {
        throw new FormatError(
          'table',
          `table output encountered non-record value: ${formatValue(v)}`,
        );
      }
      line.len = 0;
      try {
        const layout = this.columns.layout(v.type);
        if (layout !== this.layout) {
          if (this.layout !== undefined) table.flush();
          this.writeHeader(layout);
          this.layout = layout;
          this.rows = 0;
        }
        if (this.rows >= ROWS_PER_HEADER) {
          table.flush();
          this.writeHeader(layout);
          this.rows = 0;
        }
        this.columns.appendRow(line, v);
      } catch (e) {
        throw formatError('table', e);
      }
      line.byte(10);
      table.write(line.buf, 0, line.len);
      this.rows++;
      if (table.out.len >= FLUSH_AT) await this.sink.write(table.out.take());
    }
  }

  private writeHeader(layout: FlatLayout): void {
    const line = this.line;
    line.len = 0;
    layout.names.forEach((name, i) => {
      if (i > 0) line.byte(9);
      line.utf8(name);
    });
    line.byte(10);
    this.table.write(line.buf, 0, line.len);
    line.len = 0;
  }

  async close(): Promise<void> {
    this.table.flush();
    const out = this.table.out;
    if (out.len > 0) await this.sink.write(out.take());
    await this.sink.end();
  }
}
