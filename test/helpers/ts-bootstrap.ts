// Node code that lets a child process require TypeScript (test children
// run the sources, as jest does): each file is compiled with @swc/core,
// which jest already uses, and the output is kept in a cache directory
// keyed by the source's hash, so the hundreds of `zlake` processes the
// CLI scripts start compile each module once rather than every time
// (about a quarter of a second a process). Writes go to a temporary name
// first, so processes sharing the cache never read half a file.

import { tmpdir } from 'node:os';
import * as path from 'node:path';

const CACHE = path.join(tmpdir(), 'zlake-test-swc-cache');

/** The prelude; code after it may require .ts files. */
export const tsRequire = `
const swc = require(${JSON.stringify(require.resolve('@swc/core'))});
const fs = require('fs');
const crypto = require('crypto');
const cacheDir = ${JSON.stringify(CACHE)};
const swcVersion = require(${JSON.stringify(require.resolve('@swc/core/package.json'))}).version;
const swcOptions = { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } };
const optionsKey = swcVersion + JSON.stringify(swcOptions);
require.extensions['.ts'] = function (module, filename) {
  const src = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha1').update(optionsKey).update('\\0').update(filename).update('\\0').update(src).digest('hex');
  const cached = require('path').join(cacheDir, key + '.js');
  let code;
  try {
    code = fs.readFileSync(cached, 'utf8');
  } catch {
    code = swc.transformSync(src, { filename, ...swcOptions }).code;
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      const tmp = cached + '.' + process.pid + '.tmp';
      fs.writeFileSync(tmp, code);
      fs.renameSync(tmp, cached);
    } catch {}
  }
  module._compile(code, filename);
};
`;
