// Byte sizes as the reference's flags take them ("500MiB", "10MB", "1KB"):
// binary units with an "iB" suffix, metric ones with "B", and sequences
// such as "1MB500KB", with the reference's error texts.

const binary: Record<string, number> = {
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
  PiB: 1024 ** 5,
  EiB: 1024 ** 6,
};

const metric: Record<string, number> = {
  B: 1,
  kB: 1e3,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  PB: 1e15,
  EB: 1e18,
};

function parseWith(s: string, units: Record<string, number>): number {
  const orig = s;
  const invalid = () => new Error(`units: invalid ${orig}`);
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0;
  while (s !== '') {
    const m = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    if (m[0] === '' || (m[1] === '' && (m[2] ?? '') === '')) throw invalid();
    const n = Number(`${m[1] || '0'}.${m[2] || '0'}`);
    s = s.slice(m[0].length);
    const u = /^[^.\d]*/.exec(s)![0];
    s = s.slice(u.length);
    const scale = units[u];
    if (scale === undefined) throw new Error(`units: unknown unit ${u} in ${orig}`);
    total += n * scale;
  }
  if (total >= 2 ** 63) throw new Error('units: overflow parsing unit');
  return Math.trunc(neg ? -total : total);
}

/** Parses a byte size: binary units first, then metric. */
export function parseBytes(s: string): number {
  try {
    return parseWith(s, binary);
  } catch {
    return parseWith(s, metric);
  }
}
