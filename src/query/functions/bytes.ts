// Functions between bytes and their text forms: base64, hex and ksuid.

import { randomFillSync } from 'node:crypto';
import { goQuote } from '../../formats/zson/gotext';
import { formatValue } from '../../formats/zson';
import { ID, TypeBytes, TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { newError } from '../expr/errors';
import { NULL } from '../expr/expr';
import { Scratch } from '../expr/scratch';
import { registerFunction, valueFunction } from './registry';

function utf8String(v: Value): string {
  return v.len <= 0 ? '' : v.buf.toString('utf8', v.off, v.off + v.len);
}

/**
 * Decodes standard (padded) base64 as Go's base64.StdEncoding does:
 * newlines are skipped, anything else outside the alphabet is an error.
 */
export function decodeBase64(s: string): Buffer | undefined {
  const t = s.replace(/[\r\n]/g, '');
  if (t.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:==?)?$/.test(t)) return undefined;
  const pad = t.endsWith('==') ? 2 : t.endsWith('=') ? 1 : 0;
  if (pad > 0 && (t.length - pad) % 4 === 1) return undefined;
  return Buffer.from(t, 'base64');
}

registerFunction(
  'base64',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return ([v]) => {
      switch (v.type.under.id) {
        case ID.Bytes:
          if (v.len < 0) return newError(zctx, 'base64: illegal null argument');
          return out.string(TypeString, v.buf.toString('base64', v.off, v.off + v.len));
        case ID.String: {
          if (v.len < 0) return NULL;
          const b = decodeBase64(utf8String(v));
          if (b === undefined) {
            return newError(
              zctx,
              `base64: string argument is not base64: ${goQuote(utf8String(v))}`,
            );
          }
          return out.copy(TypeBytes, b, 0, b.length);
        }
        default:
          return newError(
            zctx,
            `base64: argument must a bytes or string type (bad argument: ${formatValue(v)})`,
          );
      }
    };
  }),
);

registerFunction(
  'hex',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return ([v]) => {
      switch (v.type.under.id) {
        case ID.Bytes:
          if (v.len < 0) return newError(zctx, 'hex: illegal null argument');
          return out.string(TypeString, v.buf.toString('hex', v.off, v.off + v.len));
        case ID.String: {
          if (v.len < 0) return out.null(TypeString);
          const s = utf8String(v);
          if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) {
            return newError(zctx, `hex: string argument is not hexidecimal: ${goQuote(s)}`);
          }
          const n = s.length / 2;
          const buf = out.reserve(n);
          buf.write(s, 0, 'hex');
          return out.view(TypeBytes, buf, 0, n);
        }
        default:
          // The reference's text names base64 here too.
          return newError(
            zctx,
            `base64: argument must a bytes or string type (bad argument: ${formatValue(v)})`,
          );
      }
    };
  }),
);

// KSUIDs: 20 bytes (a 4-byte count of seconds since 1400000000, then 16
// random bytes) written as 27 base62 digits.

const KSUID_EPOCH = 1400000000;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const MAX_KSUID = (1n << 160n) - 1n;

/** The base62 text of a 20-byte KSUID. */
export function ksuidText(buf: Buffer, off: number): string {
  let n = BigInt('0x' + buf.toString('hex', off, off + 20));
  let s = '';
  while (n > 0n) {
    s = BASE62[Number(n % 62n)] + s;
    n /= 62n;
  }
  return s.padStart(27, '0');
}

/** The digit value the reference's decoder gives a byte (any byte, wrapping). */
function base62Value(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x5a) return 10 + c - 0x41;
  return (36 + ((c - 0x61) & 0xff)) & 0xff;
}

/** The 20 bytes of a KSUID text, or the reference's error text. */
export function parseKsuid(text: Buffer, off: number, len: number): Buffer | string {
  if (len !== 27) return 'Valid encoded KSUIDs are 27 characters';
  let n = 0n;
  for (let i = 0; i < 27; i++) n = n * 62n + BigInt(base62Value(text[off + i]));
  if (n > MAX_KSUID) {
    return `Valid encoded KSUIDs are bounded by ${'0'.repeat(27)} and aWgEPTl1tmebfsQzFP4bxwgy80V`;
  }
  return Buffer.from(n.toString(16).padStart(40, '0'), 'hex');
}

const random = Buffer.allocUnsafe(16 * 64);
let randomPos = random.length;

/** A new KSUID into buf[0, 20). */
export function newKsuid(buf: Buffer, nowMs = Date.now()): void {
  buf.writeUInt32BE((Math.floor(nowMs / 1000) - KSUID_EPOCH) >>> 0, 0);
  if (randomPos >= random.length) {
    randomFillSync(random);
    randomPos = 0;
  }
  random.copy(buf, 4, randomPos, randomPos + 16);
  randomPos += 16;
}

registerFunction(
  'ksuid',
  valueFunction(0, 1, ({ zctx }) => {
    const out = new Scratch();
    return (args) => {
      if (args.length === 0) {
        const buf = out.reserve(20);
        newKsuid(buf);
        return out.view(TypeBytes, buf, 0, 20);
      }
      const v = args[0];
      switch (v.type.under.id) {
        case ID.Bytes:
          if (v.len < 0) return newError(zctx, 'ksuid: illegal null argument');
          if (v.len !== 20) return newError(zctx, 'ksuid: Valid KSUIDs are 20 bytes');
          return out.string(TypeString, ksuidText(v.buf, v.off));
        case ID.String: {
          const r = parseKsuid(v.buf, v.off, Math.max(v.len, 0));
          if (typeof r === 'string') {
            return newError(zctx, `ksuid: ${r} (bad argument: ${formatValue(v)})`);
          }
          return out.copy(TypeBytes, r, 0, 20);
        }
        default:
          return newError(
            zctx,
            `ksuid: argument must a bytes or string type (bad argument: ${formatValue(v)})`,
          );
      }
    };
  }),
);
