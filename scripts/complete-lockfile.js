// Adds lock entries for platform-specific optional dependencies that npm
// leaves out of package-lock.json when the registry it talks to lacks other
// platforms' binaries (as the registry mirror on our machines does). Without
// them `npm ci` refuses the lock ("Missing: ... from lock file"). Run after
// every `npm install`:  node scripts/complete-lockfile.js
const fs = require('fs');
const { execFileSync } = require('child_process');
const file = process.argv[2] || 'package-lock.json';
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const pkgs = lock.packages;
let added = 0;
// The registry reachable here lacks other platforms' binaries: infer the
// platform from the package name, as those packages are named.
function guess(name, spec) {
  const m = { version: spec.replace(/^[\^~]/, '') };
  const os = /(darwin|linux|win32|android|freebsd|openharmony|sunos|aix|netbsd|openbsd)/.exec(name);
  const cpu = /(arm64|x64|ia32|arm|ppc64|s390x|riscv64|loong64|wasm32|mips64el)/.exec(
    name.replace(/^.*?(darwin|linux|win32|android|freebsd|openharmony)/, ''),
  );
  if (os) m.os = [os[1]];
  if (cpu) m.cpu = [cpu[1]];
  if (/musl/.test(name)) m.libc = ['musl'];
  else if (/-gnu/.test(name) && os && os[1] === 'linux') m.libc = ['glibc'];
  return m;
}
for (const [path, entry] of Object.entries(pkgs)) {
  const opt = entry.optionalDependencies;
  if (!opt) continue;
  for (const [name, spec] of Object.entries(opt)) {
    const nested = (path ? path + '/' : '') + 'node_modules/' + name;
    const hoisted = 'node_modules/' + name;
    if (pkgs[nested] || pkgs[hoisted]) continue;
    let m;
    try {
      const meta = JSON.parse(
        execFileSync(
          'npm',
          [
            'view',
            `${name}@${spec}`,
            'version',
            'os',
            'cpu',
            'libc',
            'license',
            'engines',
            '--json',
          ],
          { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
        ),
      );
      m = Array.isArray(meta) ? meta[meta.length - 1] : meta;
    } catch {
      m = guess(name, spec);
    }
    const e = { version: m.version };
    if (entry.dev) e.dev = true;
    e.optional = true;
    if (m.license) e.license = m.license;
    if (m.os) e.os = m.os;
    if (m.cpu) e.cpu = m.cpu;
    if (m.libc) e.libc = m.libc;
    if (m.engines) e.engines = m.engines;
    pkgs[hoisted] = e;
    added++;
  }
}
const sorted = {};
for (const k of Object.keys(pkgs).sort((a, b) =>
  a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0,
))
  sorted[k] = pkgs[k];
lock.packages = sorted;
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} entries`);
