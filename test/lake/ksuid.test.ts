import fc from 'fast-check';
import { Ksuid } from '../../src/lake/ksuid';

test('the reference parses these forms to the same ID', () => {
  const id = Ksuid.parse('0x0123456789012345678901234567890123456789')!;
  expect(id.toString()).toBe('0A42ooXOWFkGit78ZjPVLpDkRgn');
  expect(Ksuid.parse('0A42ooXOWFkGit78ZjPVLpDkRgn')!.toHex()).toBe(
    '0x0123456789012345678901234567890123456789',
  );
});

test('bad IDs do not parse', () => {
  for (const s of [
    '0x012345678901234567890123456789012345678_', // not hex
    '0A42ooXOWFkGit78ZjPVLpDkRgnn', // too long
    '0A42ooXOWFkGit78ZjPVLpDkRg', // too short
    'aWgEPTl1tmebfsQzFP4bxwgy80W', // one past the largest 160-bit value
    '0A42ooXOWFkGit78ZjPVLpDkR-n',
    '0x01234',
    '',
  ]) {
    expect(Ksuid.parse(s)).toBeUndefined();
  }
  expect(() => Ksuid.mustParse('nope')).toThrow('invalid ID: nope');
  expect(Ksuid.parse('aWgEPTl1tmebfsQzFP4bxwgy80V')!.toHex()).toBe('0x' + 'ff'.repeat(20));
});

test('the nil ID', () => {
  expect(Ksuid.nil.toString()).toBe('000000000000000000000000000');
  expect(Ksuid.nil.toHex()).toBe('0x' + '0'.repeat(40));
  expect(Ksuid.nil.isNil).toBe(true);
  expect(Ksuid.parse('000000000000000000000000000')!.isNil).toBe(true);
  expect(Ksuid.generate().isNil).toBe(false);
});

test('generated IDs carry their time and sort by it', () => {
  const t = Date.UTC(2024, 0, 2, 3, 4, 5);
  const a = Ksuid.generate(t);
  const b = Ksuid.generate(t + 2000);
  expect(a.timestamp).toBe(t / 1000);
  expect(a.compare(b)).toBeLessThan(0);
  expect(a.toString() < b.toString()).toBe(true);
  expect(a.toString()).toHaveLength(27);
  const ids = new Set(Array.from({ length: 1000 }, () => Ksuid.generate().toString()));
  expect(ids.size).toBe(1000);
});

test('both text forms round-trip any 20 bytes', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
      const id = Ksuid.fromBytes(bytes);
      const s = id.toString();
      expect(s).toMatch(/^[0-9A-Za-z]{27}$/);
      expect(Ksuid.parse(s)!.equals(id)).toBe(true);
      expect(Ksuid.parse(id.toHex())!.equals(id)).toBe(true);
      expect(Buffer.from(Ksuid.parse(s)!.bytes)).toEqual(Buffer.from(bytes));
    }),
  );
  // Base62 text order is byte order.
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 20, maxLength: 20 }),
      fc.uint8Array({ minLength: 20, maxLength: 20 }),
      (x, y) => {
        const a = Ksuid.fromBytes(x);
        const b = Ksuid.fromBytes(y);
        expect(Math.sign(a.compare(b))).toBe(
          Math.sign(a.toString() < b.toString() ? -1 : a.toString() > b.toString() ? 1 : 0),
        );
      },
    ),
  );
});
