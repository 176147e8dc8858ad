// Output flags shared by zq and the lake client commands: -f, -z, -Z, -j,
// -pretty, -zng.compress, -zng.framethresh, -o, -B (the reference's
// outputflags), and opening the chosen writer.

import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { ByteSink, sinkToWritable, ValueWriter, WriterOptions } from '../formats/io';
import { formatByName } from '../formats/registry';
import { FlagSet, UsageError } from './flags';

export class OutputFlags {
  private format: { value: string };
  private json: { value: boolean };
  private zson: { value: boolean };
  private zsonPretty: { value: boolean };
  private forceBinary: { value: boolean };
  private pretty: { value: number };
  private compress: { value: boolean };
  private frameThresh: { value: number };
  private output: { value: string };

  constructor(
    fs: FlagSet,
    private defaultFormat = 'zng',
  ) {
    this.format = fs.string(
      'f',
      defaultFormat,
      'format for output data [arrows,csv,json,parquet,table,text,tsv,vng,zeek,zjson,zng,zson]',
    );
    this.json = fs.bool('j', false, 'use line-oriented JSON output independent of -f option');
    this.zson = fs.bool('z', false, 'use line-oriented ZSON output independent of -f option');
    this.zsonPretty = fs.bool('Z', false, 'use formatted ZSON output independent of -f option');
    this.forceBinary = fs.bool('B', false, 'allow binary zng be sent to a terminal output');
    this.pretty = fs.int(
      'pretty',
      4,
      'tab size to pretty print ZSON output (0 for newline-delimited ZSON',
    );
    this.compress = fs.bool('zng.compress', true, 'compress ZNG frames');
    this.frameThresh = fs.int(
      'zng.framethresh',
      512 * 1024,
      'minimum ZNG frame size in uncompressed bytes',
    );
    this.output = fs.string('o', '', 'write data to output file');
  }

  /** The chosen format name and writer options, after the shortcut flags. */
  resolve(stdoutIsTTY: boolean): { format: string; opts: WriterOptions; file: string } {
    let format = this.format.value;
    let pretty = this.pretty.value;
    if (this.json.value) {
      if (format !== this.defaultFormat || this.zson.value || this.zsonPretty.value) {
        throw new UsageError('cannot use -j with -f, -z, or -Z');
      }
      format = 'json';
    } else if (this.zson.value || this.zsonPretty.value) {
      if (format !== this.defaultFormat) throw new UsageError('cannot use -z or -Z with -f');
      format = 'zson';
      if (!this.zsonPretty.value) pretty = 0;
    }
    const file = this.output.value === '-' ? '' : this.output.value;
    if (file === '' && format === 'zng' && !this.forceBinary.value && stdoutIsTTY) {
      format = 'zson';
      pretty = 0;
    }
    return {
      format,
      file,
      opts: { pretty, compress: this.compress.value, frameThreshold: this.frameThresh.value },
    };
  }

  /** Opens the writer on stdout or the -o file. */
  open(stdout: Writable = process.stdout): ValueWriter {
    const { format, opts, file } = this.resolve(Boolean((stdout as { isTTY?: boolean }).isTTY));
    const sink: ByteSink = file
      ? sinkToWritable(createWriteStream(file))
      : sinkToWritable(stdout, false);
    return newWriter(format, sink, opts);
  }
}

/**
 * A writer for a format name as the commands use it: "json" is the
 * reference's line-oriented JSON here (the service's one-array JSON is
 * chosen by media type instead).
 */
export function newWriter(format: string, sink: ByteSink, opts: WriterOptions): ValueWriter {
  const f = formatByName(format === 'json' ? 'ndjson' : format);
  if (!f || !f.newWriter) throw new UsageError(`unknown output format: ${format}`);
  return f.newWriter(sink, opts);
}
