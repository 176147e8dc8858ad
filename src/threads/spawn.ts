// Starts a worker thread from its compiled JavaScript, or, where only the
// TypeScript sources are there (jest runs them), through a loader that
// compiles each module as it is required, with the compiler jest uses.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** A worker running dir/name.js, or dir/name.ts compiled on the fly. */
export function spawnWorker(dir: string, name: string): Worker {
  const js = join(dir, `${name}.js`);
  if (existsSync(js)) return new Worker(js);
  const ts = join(dir, `${name}.ts`);
  const loader = `
    const fs = require('node:fs');
    const swc = require(${JSON.stringify(require.resolve('@swc/core'))});
    require.extensions['.ts'] = (m, filename) => {
      const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
        filename,
        jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
        module: { type: 'commonjs' },
      });
      m._compile(code, filename);
    };
    require(${JSON.stringify(ts)});`;
  return new Worker(loader, { eval: true });
}
