// IP addresses (4 or 16 bytes) and networks (address + mask, 8 or 32 bytes)
// in the text forms Go's net/netip writes and reads.

/** Text of an IP address stored in buf[off, off+len). */
export function formatIP(buf: Uint8Array, off: number, len: number): string {
  if (len === 4) return `${buf[off]}.${buf[off + 1]}.${buf[off + 2]}.${buf[off + 3]}`;
  if (len !== 16) return '<bad ip>';
  // IPv4-mapped IPv6 keeps its mapped form.
  let mapped = true;
  for (let i = 0; i < 10; i++) if (buf[off + i] !== 0) mapped = false;
  if (mapped && buf[off + 10] === 0xff && buf[off + 11] === 0xff) {
    return '::ffff:' + formatIP(buf, off + 12, 4);
  }
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((buf[off + i] << 8) | buf[off + i + 1]);
  // The longest run of two or more zero groups becomes "::" (first wins).
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  let s = '';
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      s += '::';
      i += bestLen - 1;
      continue;
    }
    if (s.length > 0 && !s.endsWith(':')) s += ':';
    s += groups[i].toString(16);
  }
  return s;
}

function parseIPv4(s: string, out: Uint8Array, at: number): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return false;
    const n = Number(p);
    if (n > 255) return false;
    out[at + i] = n;
  }
  return true;
}

/** Parses an IPv4 or IPv6 address into 4 or 16 bytes, or returns undefined. */
export function parseIP(s: string): Uint8Array | undefined {
  if (s.indexOf(':') < 0) {
    const out = new Uint8Array(4);
    return parseIPv4(s, out, 0) ? out : undefined;
  }
  const pct = s.indexOf('%');
  if (pct >= 0) s = s.slice(0, pct);
  const out = new Uint8Array(16);
  const dbl = s.indexOf('::');
  if (dbl >= 0 && s.indexOf('::', dbl + 1) >= 0) return undefined;
  const head = dbl >= 0 ? s.slice(0, dbl) : s;
  const tail = dbl >= 0 ? s.slice(dbl + 2) : '';
  const parseGroups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const bytes: number[] = [];
    const gs = part.split(':');
    for (let i = 0; i < gs.length; i++) {
      const g = gs[i];
      if (i === gs.length - 1 && g.indexOf('.') >= 0) {
        const v4 = new Uint8Array(4);
        if (!parseIPv4(g, v4, 0)) return undefined;
        bytes.push(...v4);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      const n = parseInt(g, 16);
      bytes.push(n >> 8, n & 0xff);
    }
    return bytes;
  };
  const hb = parseGroups(head);
  const tb = parseGroups(tail);
  if (!hb || !tb) return undefined;
  if (dbl < 0) {
    if (hb.length !== 16) return undefined;
    out.set(hb);
    return out;
  }
  if (hb.length + tb.length > 14) return undefined;
  out.set(hb, 0);
  out.set(tb, 16 - tb.length);
  return out;
}

/** Number of leading one bits of the mask in buf[off, off+len). */
export function leadingOnes(buf: Uint8Array, off: number, len: number): number {
  let n = 0;
  for (let i = 0; i < len; i++) {
    const b = buf[off + i];
    if (b === 0xff) {
      n += 8;
      continue;
    }
    for (let bit = 7; bit >= 0 && b & (1 << bit); bit--) n++;
    break;
  }
  return n;
}

/** Text of a network (address bytes then mask bytes). */
export function formatNet(buf: Uint8Array, off: number, len: number): string {
  const half = len >> 1;
  return formatIP(buf, off, half) + '/' + leadingOnes(buf, off + half, half);
}

/**
 * Parses "addr/bits" into the 8- or 32-byte network encoding with the
 * address masked, or returns undefined.
 */
export function parseNet(s: string): Uint8Array | undefined {
  const slash = s.lastIndexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const bitsText = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > ip.length * 8) return undefined;
  return makeNet(ip, bits);
}

/** The network encoding of ip masked to bits. */
export function makeNet(ip: Uint8Array, bits: number): Uint8Array {
  const n = ip.length;
  const out = new Uint8Array(n * 2);
  for (let i = 0; i < n; i++) {
    const ones = Math.max(0, Math.min(8, bits - i * 8));
    const mask = ones === 0 ? 0 : (0xff << (8 - ones)) & 0xff;
    out[i] = ip[i] & mask;
    out[n + i] = mask;
  }
  return out;
}
