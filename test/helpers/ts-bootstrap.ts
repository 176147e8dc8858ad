// Node code that lets a child process require TypeScript (test children
// run the sources, as jest does): each file is compiled with @swc/core,
// which jest already uses, and the output is kept in a cache directory
// keyed by the source's hash, so the hundreds of `zlake` processes the
// CLI scripts start compile each module once rather than every time
// (about a quarter of a second a process). The cache lives under
// node_modules/.cache (removed with the modules; not shared with other
// users). Writes go to a temporary name first, and an entry ends with its
// key, so a short or foreign file is compiled again, never run.

import * as path from 'node:path';

const CACHE = path.resolve(__dirname, '../../node_modules/.cache/zlake-swc');

/** The prelude; code after it may require .ts files. */
export const tsRequire = `
const swc = require(${JSON.stringify(require.resolve('@swc/core'))});
const fs = require('fs');
const crypto = require('crypto');
const cacheDir = ${JSON.stringify(CACHE)};
const swcVersion = require(${JSON.stringify(require.resolve('@swc/core/package.json'))}).version;
const swcOptions = { swcrc: false, jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } };
const optionsKey = swcVersion + JSON.stringify(swcOptions);
require.extensions['.ts'] = function (module, filename) {
  const src = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha1').update(optionsKey).update('\\0').update(filename).update('\\0').update(src).digest('hex');
  const cached = require('path').join(cacheDir, key + '.js');
  const trailer = '\\n//# zlake-swc ' + key + '\\n';
  let code;
  try {
    code = fs.readFileSync(cached, 'utf8');
    if (!code.endsWith(trailer)) throw new Error('stale');
  } catch {
    code = swc.transformSync(src, { filename, ...swcOptions }).code + trailer;
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
