// IP functions: cidr_match and network_of.

import { formatValue } from '../../formats/zson';
import { formatIP, leadingOnes, makeNet } from '../../zed/ipnet';
import { decodeInt, decodeUint } from '../../zed/primitive';
import { ID, isInteger, isSigned, Type, TypeNet } from '../../zed/types';
import { Value } from '../../zed/value';
import { newError } from '../expr/errors';
import { FALSE, TRUE } from '../expr/expr';
import { Scratch } from '../expr/scratch';
import { Walker } from '../expr/walk';
import { registerFunction, valueFunction } from './registry';

/** True when the ip in ip[off, off+len) is in the network net[noff, noff+nlen). */
export function netContains(
  net: Buffer,
  noff: number,
  nlen: number,
  ip: Buffer,
  off: number,
  len: number,
): boolean {
  const n = nlen >> 1;
  if (len !== n) return false;
  for (let i = 0; i < n; i++) {
    const mask = net[noff + n + i];
    if ((ip[off + i] & mask) !== net[noff + i]) return false;
  }
  return true;
}

registerFunction(
  'cidr_match',
  valueFunction(
    2,
    2,
    ({ zctx }) => {
      const walker = new Walker();
      let net: Value = TRUE;
      const visit = (t: Type, buf: Buffer, off: number, len: number): boolean =>
        t.under.id === ID.IP && len > 0 && netContains(net.buf, net.off, net.len, buf, off, len);
      return ([mask, v]) => {
        if (mask.type.under.id !== ID.Net) {
          return newError(zctx, `cidr_match: not a net: ${formatValue(mask)}`);
        }
        if (mask.len <= 0) return FALSE;
        net = mask;
        return walker.walk(v.type, v.buf, v.off, v.len, visit) ? TRUE : FALSE;
      };
    },
    { boolResult: true },
  ),
);

registerFunction(
  'network_of',
  valueFunction(1, 2, ({ zctx }) => {
    const out = new Scratch();
    const fail = (msg: string) => newError(zctx, `network_of: ${msg}`);
    return (args) => {
      const ipv = args[0];
      if (ipv.type.under.id !== ID.IP) return fail('not an IP');
      const ip = ipv.buf;
      const ioff = ipv.off;
      const ilen = ipv.len;
      let bits: number;
      if (args.length === 1) {
        if (ilen !== 4) return fail('not an IPv4 address');
        const b0 = ip[ioff];
        bits = b0 < 0x80 ? 8 : b0 < 0xc0 ? 16 : 24;
      } else {
        if (ilen < 0) return fail('not an IP');
        const m = args[1];
        const id = m.type.under.id;
        if (id === ID.IP) {
          const mlen = Math.max(m.len, 0);
          if (mlen !== ilen) {
            return fail(
              `address ${formatIP(ip, ioff, ilen)} and mask ${formatIP(m.buf, m.off, mlen)} have different lengths`,
            );
          }
          bits = leadingOnes(m.buf, m.off, mlen);
          const canon = makeNet(m.buf.subarray(m.off, m.off + mlen), bits);
          for (let i = 0; i < mlen; i++) {
            if (canon[i] !== m.buf[m.off + i]) {
              return fail(`mask ${formatIP(m.buf, m.off, mlen)} is non-contiguous`);
            }
          }
        } else if (isInteger(id)) {
          const len = Math.max(m.len, 0);
          bits = isSigned(id) ? decodeInt(m.buf, m.off, len) : decodeUint(m.buf, m.off, len);
          if (bits > 128 || (bits > 32 && ilen === 4) || bits < 0) {
            return fail('cidr bit count out of range');
          }
        } else {
          return fail('bad arg for cidr mask');
        }
      }
      const net = makeNet(ip.subarray(ioff, ioff + ilen), bits);
      return out.copy(TypeNet, net, 0, net.length);
    };
  }),
);
