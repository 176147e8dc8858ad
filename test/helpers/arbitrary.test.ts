import fc from 'fast-check';
import { TypeContext, ZIter, countChildren, TypeRecord } from '../../src/zed';
import { arbRecord, arbValue } from './arbitrary';

test('generated values are well-formed zcode', () => {
  const ctx = new TypeContext();
  fc.assert(
    fc.property(arbValue(ctx), (v) => {
      if (v.isNull) return;
      if (v.type.under instanceof TypeRecord) {
        expect(countChildren(v.buf, v.off, v.off + v.len)).toBe(
          (v.type.under as TypeRecord).fields.length,
        );
      }
    }),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(arbRecord(ctx), (v) => {
      const it = new ZIter(v.buf, v.off, v.off + v.len);
      while (!it.done()) it.next();
      expect(v.type.under).toBeInstanceOf(TypeRecord);
    }),
    { numRuns: 200 },
  );
  // Strings are valid UTF-8 (round-trip through Buffer).
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary' }),
      (s) => Buffer.from(s, 'utf8').toString('utf8') === s,
    ),
  );
});
