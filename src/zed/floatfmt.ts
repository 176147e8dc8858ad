// Float text exactly as Go's strconv.FormatFloat writes it with the
// shortest round-trip digits, which the reference uses for ZSON and friends.

/** Shortest decimal digits and decimal-point position of |v| (v finite, non-zero). */
function shortestDigits(v: number, bits: 32 | 64): { digits: string; dp: number } {
  let s: string;
  if (bits === 64) {
    s = Math.abs(v).toExponential();
  } else {
    const a = Math.abs(v);
    s = a.toExponential(8);
    for (let p = 0; p < 9; p++) {
      const t = a.toExponential(p);
      if (Math.fround(Number(t)) === a) {
        s = t;
        break;
      }
    }
  }
  const e = s.indexOf('e');
  const mant = s.slice(0, e).replace('.', '');
  const exp = Number(s.slice(e + 1));
  let digits = mant.replace(/0+$/, '');
  if (digits === '') digits = '0';
  return { digits, dp: exp + 1 };
}

function expText(exp: number): string {
  const sign = exp < 0 ? '-' : '+';
  const a = Math.abs(exp);
  return 'e' + sign + (a < 10 ? '0' + a : String(a));
}

/** strconv.FormatFloat(v, 'g', -1, bits). */
export function formatFloatG(v: number, bits: 32 | 64 = 64): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const neg = v < 0 || Object.is(v, -0);
  if (v === 0) return neg ? '-0' : '0';
  const { digits, dp } = shortestDigits(v, bits);
  const exp = dp - 1;
  const sign = neg ? '-' : '';
  // Go's shortest 'g' uses %e when the exponent is < -4 or >= 6.
  if (exp < -4 || exp >= 6) return sign + fmtE(digits, exp);
  return sign + fmtF(digits, dp);
}

function fmtE(digits: string, exp: number): string {
  let s = digits[0];
  if (digits.length > 1) s += '.' + digits.slice(1);
  return s + expText(exp);
}

function fmtF(digits: string, dp: number): string {
  if (dp <= 0) return '0.' + '0'.repeat(-dp) + digits;
  if (dp >= digits.length) return digits + '0'.repeat(dp - digits.length);
  return digits.slice(0, dp) + '.' + digits.slice(dp);
}

/** strconv.FormatFloat(v, 'e', -1, bits). */
export function formatFloatE(v: number, bits: 32 | 64 = 64): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return (Object.is(v, -0) ? '-' : '') + '0e+00';
  const { digits, dp } = shortestDigits(v, bits);
  return (v < 0 ? '-' : '') + fmtE(digits, dp - 1);
}

/** strconv.FormatFloat(v, 'f', -1, bits). */
export function formatFloatF(v: number, bits: 32 | 64 = 64): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const { digits, dp } = shortestDigits(v, bits);
  return (v < 0 ? '-' : '') + fmtF(digits, dp);
}

/**
 * A float as ZSON writes it: whole numbers as "<int>." (e.g. "1."),
 * everything else in Go's shortest 'g' form ("1.5", "1e-07", "NaN", "+Inf").
 */
export function formatFloatZSON(v: number, bits: 16 | 32 | 64 = 64): string {
  // The reference tests f == float64(int64(f)); the int64 conversion
  // saturates oddly outside ±2^63, where it never compares equal.
  if (Number.isFinite(v) && Number.isInteger(v) && Math.abs(v) < 2 ** 63) {
    return BigInt(v).toString() + '.';
  }
  return formatFloatG(v, bits === 64 ? 64 : 32);
}
