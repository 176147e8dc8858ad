// Output of the lake commands: the shared output flags plus the "lake"
// text format (the default of ls, branch and log) and -color.

import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { sinkToWritable, ValueReader, ValueWriter } from '../../formats/io';
import { FlagSet } from '../flags';
import { newWriter, OutputFlags } from '../output';
import { LakeFlags } from './lakeflags';
import { LakeWriter } from './lakefmt';

function isTTY(w: Writable): boolean {
  return Boolean((w as { isTTY?: boolean }).isTTY);
}

export class LakeOutputFlags {
  private flags: OutputFlags;
  private color: { value: boolean };

  constructor(fs: FlagSet, defaultFormat = 'zng') {
    this.flags = new OutputFlags(fs, defaultFormat);
    this.color = fs.bool(
      'color',
      true,
      'enable/disable color formatting for -Z and lake text output',
    );
  }

  /** The chosen format (after -z, -Z, -j and the terminal rule). */
  format(stdout: Writable): string {
    return this.flags.resolve(isTTY(stdout)).format;
  }

  /**
   * Opens the writer on stdout or the -o file. head is the working branch
   * or commit the lake format marks as HEAD.
   */
  open(stdout: Writable, head?: string): ValueWriter {
    const tty = isTTY(stdout);
    const { format, opts, file } = this.flags.resolve(tty);
    const sink = file ? sinkToWritable(createWriteStream(file)) : sinkToWritable(stdout, false);
    if (format === 'lake') {
      return new LakeWriter(sink, { head, color: file === '' && tty && this.color.value });
    }
    return newWriter(format, sink, opts);
  }
}

/** Runs a query on the lake and writes its values with the output flags. */
export async function showQuery(
  lake: LakeFlags,
  output: LakeOutputFlags,
  stdout: Writable,
  query: string,
): Promise<void> {
  const client = await lake.connect();
  const w = output.open(stdout);
  let q;
  try {
    q = await client.query(query);
  } catch (e) {
    await w.close();
    throw e;
  }
  await copyAll(q, w);
}

/** Copies every value from r to w, then closes both (w even on error). */
export async function copyAll(r: ValueReader, w: ValueWriter): Promise<void> {
  try {
    for (let batch = await r.read(); batch; batch = await r.read()) await w.write(batch);
  } catch (e) {
    await w.close().catch(() => {});
    throw e;
  } finally {
    await r.close?.();
  }
  await w.close();
}
