// zlake query: run a query on the lake service and write its results in
// the chosen format as they arrive (ZNG from the service, converted here).
// A query without `from` reads the working branch. -s prints the query's
// statistics on stderr.

import { formatProgress } from '../../client';
import { LakeCommand, NeedHelp } from './command';
import { copyAll, LakeOutputFlags } from './output';

export const query: LakeCommand = {
  name: 'query',
  usage: 'query [options] [zed-query]',
  short: 'run a Zed query on a Zed data lake',
  long: `
Runs a Zed query on the lake and writes its results to standard output (or
the -o file) in the -f format: ZSON on a terminal, ZNG otherwise. A query
that does not start with "from" reads the working branch. -I adds query
text from files before the query argument. -s prints the query's
statistics on standard error when it completes.
`,
  hidden: ['aggmem', 'sortmem', 'fusemem'],
  setup(fs, lake, io) {
    const output = new LakeOutputFlags(fs);
    const stats = fs.bool('s', false, 'display search stats on stderr');
    const includes = fs.strings(
      'I',
      'source file containing Zed query text (may be used multiple times)',
    );
    // The reference's local runtime limits: the service runs the query.
    for (const name of ['aggmem', 'sortmem', 'fusemem']) {
      fs.string(name, '', 'accepted for compatibility (no effect)');
    }
    return async (args) => {
      if (args.length > 1 || (args.length === 0 && includes.value.length === 0))
        throw new NeedHelp();
      const src = args.length === 1 ? args[0] : '';
      const client = await lake.connect();
      const w = output.open(io.stdout);
      const head = lake.headOrNone();
      let q;
      try {
        q = await client.query(src, head, {
          includes: includes.value,
          onWarning: (msg) => io.stderr.write(`${msg}\n`),
        });
      } catch (e) {
        await w.close();
        throw e;
      }
      await copyAll(q, w);
      if (stats.value) {
        const p = q.progress ?? {
          bytes_read: 0,
          bytes_matched: 0,
          records_read: 0,
          records_matched: 0,
        };
        io.stderr.write(formatProgress(p) + '\n');
      }
    };
  },
};
