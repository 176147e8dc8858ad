// zlake load: read inputs locally (any format, detected or named with -i),
// stream them to the service as ZNG, and commit them to a branch in one
// commit, as the reference's client does. Inputs that cannot be opened are
// reported and skipped. Progress shows on stderr when it is a terminal (or
// with -progress).

import { Writable } from 'node:stream';
import { MediaType } from '../../client';
import { sinkToWritable, ValueReader } from '../../formats/io';
import { ZngWriter } from '../../formats/zng';
import { TypeContext } from '../../zed/context';
import { InputFlags } from '../input';
import { LakeCommand } from './command';
import { CommitFlags } from './lakeflags';
import { Progress } from './progress';

/** The name the reference gives an input in messages (stdin is "stdio:stdin"). */
function inputName(path: string): string {
  return path === '-' ? 'stdio:stdin' : path;
}

function prefixed(path: string, msg: string): string {
  const name = inputName(path);
  return msg.startsWith(`${path}: `) || msg.startsWith(`${name}: `) ? msg : `${name}: ${msg}`;
}

export const load: LakeCommand = {
  name: 'load',
  usage: 'load [options] file|S3-object|- ...',
  short: 'add and commit data to a branch',
  long: `
Reads the inputs (files, URLs, or - for standard input) in any supported
format, detected unless -i names it, and commits all of their data to the
working branch (or the one -use names) in a single commit. -user, -message
and -meta set the commit's author, message and metadata (a ZSON value).
Prints the new commit's ID.
`,
  hidden: ['zng.threads', 'zng.readmax', 'zng.readsize', 'aggmem', 'sortmem', 'fusemem'],
  setup(fs, lake, io) {
    const commit = new CommitFlags(fs, io.env);
    const input = new InputFlags(fs);
    const progress = fs.bool(
      'progress',
      false,
      'show progress on stderr even when it is not a terminal',
    );
    // The reference's read-tuning and runtime flags: accepted, no effect here.
    for (const name of [
      'zng.threads',
      'zng.readmax',
      'zng.readsize',
      'aggmem',
      'sortmem',
      'fusemem',
    ]) {
      fs.string(name, '', 'accepted for compatibility (no effect)');
    }
    return async (args) => {
      input.check();
      if (args.length === 0) {
        throw new Error('zlake load: at least one input file must be specified (- for stdin)');
      }
      const client = await lake.connect();
      const show =
        !lake.isQuiet && (progress.value || Boolean((io.stderr as { isTTY?: boolean }).isTTY));
      const meter = show ? new Progress(io.stderr) : undefined;
      const ctx = new TypeContext();
      const readers: { path: string; reader: ValueReader }[] = [];
      for (const path of args) {
        try {
          const reader = await input.open(
            path,
            ctx,
            meter && ((src, size) => meter.track(src, size)),
          );
          readers.push({ path, reader });
        } catch (e) {
          io.stderr.write(prefixed(path, (e as Error).message) + '\n');
        }
      }
      try {
        const head = lake.head();
        const pool = await client.lookupPool(head.pool);
        const body = async (out: Writable) => {
          const w = new ZngWriter(sinkToWritable(out, false));
          for (const { path, reader } of readers) {
            try {
              for (let b = await reader.read(); b; b = await reader.read()) await w.write(b);
            } catch (e) {
              throw new Error(prefixed(path, (e as Error).message), { cause: e });
            }
          }
          await w.close();
        };
        meter?.start();
        let result;
        try {
          result = await client.load(pool.id.toString(), head.branch, body, {
            contentType: MediaType.ZNG,
            message: commit.commitMessage,
          });
        } finally {
          meter?.stop();
        }
        if (!lake.isQuiet) io.stdout.write(`${result.commit} committed\n`);
      } finally {
        for (const { reader } of readers) await reader.close?.();
      }
    };
  },
};
