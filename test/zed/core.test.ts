import fc from 'fast-check';
import {
  Builder,
  compare,
  decodeInt,
  decodeIntApprox,
  decodeIntBig,
  decodeUintBig,
  decodeUint,
  formatDuration,
  formatFloatZSON,
  formatIP,
  formatNet,
  formatTime,
  formatType,
  newFloat64,
  newInt64,
  newNull,
  newString,
  newTime,
  newUint64,
  parseDuration,
  parseIP,
  parseNet,
  parseTime,
  TypeContext,
  TypeInt64,
  TypeString,
  Value,
  ZIter,
} from '../../src/zed';
import { DuplicateFieldError } from '../../src/zed/context';

describe('type context', () => {
  test('interns types: one object per distinct type, IDs from 30', () => {
    const ctx = new TypeContext();
    const a = ctx.lookupTypeRecord([{ name: 'a', type: TypeInt64 }]);
    const b = ctx.lookupTypeRecord([{ name: 'a', type: TypeInt64 }]);
    expect(a).toBe(b);
    expect(a.id).toBe(30);
    const arr = ctx.lookupTypeArray(a);
    expect(arr.id).toBe(31);
    expect(ctx.lookupType(31)).toBe(arr);
    expect(ctx.lookupTypeRecord([{ name: 'b', type: TypeInt64 }])).not.toBe(a);
  });

  test('duplicate fields are an error', () => {
    const ctx = new TypeContext();
    expect(() =>
      ctx.lookupTypeRecord([
        { name: 'a', type: TypeInt64 },
        { name: 'a', type: TypeString },
      ]),
    ).toThrow(DuplicateFieldError);
  });

  test('type values round-trip between contexts, named types included', () => {
    const c1 = new TypeContext();
    const port = c1.lookupTypeNamed('port', TypeInt64);
    const rec = c1.lookupTypeRecord([
      { name: 'p', type: port },
      { name: 'q', type: port },
      { name: 'u', type: c1.lookupTypeUnion([TypeInt64, TypeString]) },
      { name: 'e', type: c1.lookupTypeEnum(['x', 'y']) },
      { name: 'm', type: c1.lookupTypeMap(TypeString, c1.lookupTypeSet(TypeInt64)) },
      { name: 'err', type: c1.lookupTypeError(TypeString) },
    ]);
    expect(formatType(rec)).toBe(
      '{p:port=int64,q:port,u:(int64,string),e:enum(x,y),m:|{string:|[int64]|}|,err:error(string)}',
    );
    const c2 = new TypeContext();
    const t2 = c2.translate(rec);
    expect(formatType(t2)).toBe(formatType(rec));
    expect(c2.translate(rec)).toBe(t2);
  });
});

describe('integer encodings', () => {
  const roundTrip = (v: bigint) => {
    const b = new Builder();
    b.appendInt(v);
    const it = new ZIter(b.buf, 0, b.len);
    it.next();
    return decodeIntBig(b.buf, it.off, it.len);
  };
  test('signed values round-trip at the edges', () => {
    for (const v of [0n, 1n, -1n, 63n, -64n, 2n ** 53n, -(2n ** 63n), 2n ** 63n - 1n]) {
      expect(roundTrip(v)).toBe(v);
    }
  });
  test('zero is a zero-length body', () => {
    expect(newInt64(0).len).toBe(0);
    expect(newUint64(0).len).toBe(0);
  });
  test('number decoding matches', () => {
    const v = newInt64(-123456789);
    expect(decodeInt(v.buf, v.off, v.len)).toBe(-123456789);
    const u = newUint64(2 ** 40);
    expect(decodeUint(u.buf, u.off, u.len)).toBe(2 ** 40);
  });
  test('builder patches long container tags', () => {
    const b = new Builder(4);
    b.beginContainer();
    for (let i = 0; i < 100; i++) b.appendBytes(Buffer.from('abc'));
    b.endContainer();
    const body = b.body();
    expect(body.len).toBe(400);
  });
});

describe('total order', () => {
  const sorted = (vals: Value[], nullsMax = true) =>
    vals.slice().sort((a, b) => compare(a, b, nullsMax));
  test('numbers compare across types, nulls last by default', () => {
    const vals = [newFloat64(2.5), newNull(), newInt64(3), newUint64(1), newInt64(-5)];
    const out = sorted(vals).map((v) => (v.isNull ? 'null' : v.type.under.id));
    expect(out).toEqual([TypeInt64.id, 3, 16, TypeInt64.id, 'null']);
  });
  test('other types order by type name', () => {
    const s = newString('a');
    const i = newInt64(1);
    expect(compare(i, s)).toBeLessThan(0); // "int64" < "string"
  });
  test('times compare exactly beyond 2^53', () => {
    const a = newTime(1521911720600725000n);
    const b = newTime(1521911720600725001n);
    expect(compare(a, b)).toBe(-1);
    expect(compare(b, a)).toBe(1);
    expect(compare(newInt64(-2), newInt64(-1))).toBe(-1);
  });
});

describe('text forms', () => {
  test('time', () => {
    expect(formatTime(1521911720600725000n)).toBe('2018-03-24T17:15:20.600725Z');
    expect(formatTime(0n)).toBe('1970-01-01T00:00:00Z');
    expect(formatTime(-1n)).toBe('1969-12-31T23:59:59.999999999Z');
    expect(parseTime('2018-03-24T17:15:20.600725Z')).toBe(1521911720600725000n);
    expect(parseTime('2018-03-24T19:15:20.600725+02:00')).toBe(1521911720600725000n);
  });
  test('duration', () => {
    expect(formatDuration(0n)).toBe('0s');
    expect(formatDuration(90n * 1_000_000_000n)).toBe('1m30s');
    expect(formatDuration(1_500_000n)).toBe('1.5ms');
    expect(formatDuration(-(86400n * 1_000_000_000n))).toBe('-1d');
    expect(parseDuration('1m30s')).toBe(90n * 1_000_000_000n);
    expect(parseDuration('1.5ms')).toBe(1_500_000n);
  });
  test('ip and net', () => {
    const v6 = parseIP('fe80::1:2')!;
    expect(formatIP(v6, 0, 16)).toBe('fe80::1:2');
    expect(formatIP(parseIP('::ffff:1.2.3.4')!, 0, 16)).toBe('::ffff:1.2.3.4');
    expect(formatIP(parseIP('1:0:0:1:0:0:0:1')!, 0, 16)).toBe('1:0:0:1::1');
    const n = parseNet('10.1.2.3/8')!;
    expect(formatNet(n, 0, n.length)).toBe('10.0.0.0/8');
  });
  test('floats as ZSON writes them', () => {
    expect(formatFloatZSON(1)).toBe('1.');
    expect(formatFloatZSON(-0)).toBe('0.');
    expect(formatFloatZSON(1.5)).toBe('1.5');
    expect(formatFloatZSON(1e-7)).toBe('1e-07');
    expect(formatFloatZSON(1234567.5)).toBe('1.2345675e+06');
    expect(formatFloatZSON(1e300)).toBe('1e+300');
    expect(formatFloatZSON(NaN)).toBe('NaN');
    expect(formatFloatZSON(-Infinity)).toBe('-Inf');
    expect(formatFloatZSON(0.1, 32)).toBe('0.1');
  });
});

describe('unions', () => {
  test('member types are kept in the reference type order', () => {
    const ctx = new TypeContext();
    const a = ctx.lookupTypeUnion([TypeString, TypeInt64]);
    const b = ctx.lookupTypeUnion([TypeInt64, TypeString]);
    expect(a).toBe(b);
    expect(formatType(a)).toBe('(int64,string)');
    const rec = ctx.lookupTypeRecord([{ name: 'a', type: TypeInt64 }]);
    expect(formatType(ctx.lookupTypeUnion([rec, TypeString]))).toBe('(string,{a:int64})');
  });
});

describe('signed integers are encoded as the reference does', () => {
  // zcode's counted varint: magnitude << 1 with the sign in bit 0.
  test.each([
    [0n, ''],
    [1n, '02'],
    [-1n, '03'],
    [-2n, '05'],
    [63n, '7e'],
    [-64n, '81'],
    [-128n, '0101'],
    [-(2n ** 63n), '01'],
    [2n ** 63n - 1n, 'feffffffffffffff'],
  ])('%s', (v, hex) => {
    const b = newInt64(v);
    expect(b.bytes()!.toString('hex')).toBe(hex);
    expect(decodeIntBig(b.buf, b.off, b.len)).toBe(v);
    if (v > -(2n ** 53n) && v < 2n ** 53n) expect(decodeInt(b.buf, b.off, b.len)).toBe(Number(v));
  });
  test('every length decodes exactly, and approximately as a float64', () => {
    const int64 = fc.oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }),
      fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 2n ** 55n, -(2n ** 55n) - 1n),
    );
    fc.assert(
      fc.property(int64, (v) => {
        const b = newInt64(v);
        expect(decodeIntBig(b.buf, b.off, b.len)).toBe(v);
        const approx = decodeIntApprox(b.buf, b.off, b.len);
        expect(Math.abs(approx - Number(v))).toBeLessThanOrEqual(Math.abs(Number(v)) * 2 ** -50);
        const u = BigInt.asUintN(64, v);
        const ub = newUint64(u);
        expect(decodeUintBig(ub.buf, ub.off, ub.len)).toBe(u);
      }),
      { numRuns: 3000 },
    );
  });
  test('order of encodings is numeric, -2^63 least', () => {
    const vals = [5n, -(2n ** 63n), -1n, 0n, -300n, 2n ** 63n - 1n, 3n].map(newInt64);
    const sorted = vals
      .slice()
      .sort((a, b) => compare(a, b))
      .map((v) => decodeIntBig(v.buf, v.off, v.len));
    expect(sorted).toEqual([-(2n ** 63n), -300n, -1n, 0n, 3n, 5n, 2n ** 63n - 1n]);
  });
});
