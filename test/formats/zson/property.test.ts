// Random types and values: value → ZSON text → value → ZSON text is the
// identity, compact and pretty, alone and as a stream.

import fc from 'fast-check';
import { BufferSink, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { formatValue, parseValues, zsonFormat } from '../../../src/formats/zson';
import {
  compareTypes,
  decodeFloat,
  decodeInt,
  isIdentifier,
  Type,
  TypeArray,
  TypeContext,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeUnion,
  Value,
  ID,
  readUvarint,
  uv,
} from '../../../src/zed';
import { arbValue, describe as describeValue } from '../../helpers/arbitrary';

// What the reference's ZSON cannot carry, and so neither can we:
// - union members out of the reference's type order (its context sorts them);
// - enum symbols that are not identifiers (written bare after %);
// - strings not in NFC (the reader normalises them);
// - negative zero floats (written 0.);
// - empty arrays, sets and maps right inside an error or named type (their
//   type is not written, so they read back as containers of null);
// - IPv6 addresses and nets as map values: the reference writes no space
//   after a map key's colon, so `|{0:0:0:1::/48}|` reads as one address.
//   (This test chose random ones, and failed CI now and then.)
function typeOk(t: Type, scratch: TypeContext): boolean {
  if (t instanceof TypePrimitive) return true;
  if (t instanceof TypeNamed) return typeOk(t.type, scratch);
  if (t instanceof TypeRecord) return t.fields.every((f) => typeOk(f.type, scratch));
  if (t instanceof TypeArray || t instanceof TypeSet || t instanceof TypeErr)
    return typeOk(t.type, scratch);
  if (t instanceof TypeMap) return typeOk(t.keyType, scratch) && typeOk(t.valType, scratch);
  if (t instanceof TypeUnion) {
    for (let i = 1; i < t.types.length; i++)
      if (compareTypes(t.types[i - 1], t.types[i]) > 0) return false;
    return t.types.every((m) => typeOk(m, scratch));
  }
  if (t instanceof TypeEnum) return t.symbols.every(isIdentifier);
  return true;
}

function children(buf: Buffer, off: number, len: number): [number, number][] {
  const out: [number, number][] = [];
  for (let p = off; p < off + len;) {
    const tag = readUvarint(buf, p);
    if (tag < 0) throw new Error('corrupt value');
    out.push([uv.end, tag - 1]);
    p = uv.end + (tag > 0 ? tag - 1 : 0);
  }
  return out;
}

function valueOk(t: Type, buf: Buffer, off: number, len: number, scratch: TypeContext): boolean {
  if (len < 0) return true;
  const u = t.under;
  if ((t instanceof TypeNamed || t instanceof TypeErr) && len === 0) {
    const inner = t instanceof TypeErr ? t.type.under : u;
    if (inner instanceof TypeArray || inner instanceof TypeSet || inner instanceof TypeMap)
      return false;
  }
  if (u instanceof TypePrimitive) {
    if (u.id === ID.String) {
      const s = buf.toString('utf8', off, off + len);
      return s.normalize('NFC') === s;
    }
    if (u.id === ID.Float64 || u.id === ID.Float32 || u.id === ID.Float16) {
      return !Object.is(decodeFloat(buf, off, len), -0);
    }
    if (u.id === ID.Type) return typeOk(scratch.lookupByValue(buf, off, len), scratch);
    return true;
  }
  if (u instanceof TypeEnum) return true;
  if (u instanceof TypeErr) return valueOk(u.type, buf, off, len, scratch);
  const kids = children(buf, off, len);
  if (u instanceof TypeRecord)
    return u.fields.every((f, i) => valueOk(f.type, buf, kids[i][0], kids[i][1], scratch));
  if (u instanceof TypeArray || u instanceof TypeSet)
    return kids.every(([o, l]) => valueOk(u.type, buf, o, l, scratch));
  if (u instanceof TypeMap) {
    const v6 = u.valType.under.id === ID.IP ? 16 : u.valType.under.id === ID.Net ? 32 : -1;
    return kids.every(
      ([o, l], i) =>
        (i % 2 === 0 || l !== v6) &&
        valueOk(i % 2 === 0 ? u.keyType : u.valType, buf, o, l, scratch),
    );
  }
  if (u instanceof TypeUnion) {
    const tag = decodeInt(buf, kids[0][0], kids[0][1]);
    return valueOk(u.types[tag], buf, kids[1][0], kids[1][1], scratch);
  }
  if (u instanceof TypeErr) return valueOk(u.type, buf, off, len, scratch);
  return true;
}

function carried(v: Value): boolean {
  const scratch = new TypeContext();
  return typeOk(v.type, scratch) && valueOk(v.type, v.buf, v.off, v.len, scratch);
}

const ctx = new TypeContext();
const values = arbValue(ctx, { maxDepth: 3 }).filter(carried);

describe('value → text → value → text', () => {
  test.each([0, 4])('pretty %d', (pretty) => {
    fc.assert(
      fc.property(values, (v) => {
        const text = formatValue(v, pretty);
        const back = parseValues(new TypeContext(), text);
        expect(back.length).toBe(1);
        expect(formatValue(back[0], pretty)).toBe(text);
        // The bytes survive too (the types may differ only by names of names).
        expect(back[0].len).toBe(v.len);
        if (v.len > 0) expect(back[0].bytes()!.equals(v.bytes()!)).toBe(true);
      }),
      { numRuns: 1500, examples: [] },
    );
  });

  test('a stream of values through the writer and the chunked reader', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(values, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 64 }),
        async (vs, chunk) => {
          for (const pretty of [0, 4]) {
            const sink = new BufferSink();
            const w = zsonFormat.newWriter!(sink, { pretty });
            await w.write(vs);
            await w.close();
            const text = sink.bytes();
            const back = await readAll(
              zsonFormat.newReader!(sourceFromBuffer(text, chunk), { ctx: new TypeContext() }),
            );
            expect(back.map((b) => formatValue(b, pretty) + '\n').join('')).toBe(text.toString());
            const sink2 = new BufferSink();
            const w2 = zsonFormat.newWriter!(sink2, { pretty });
            await w2.write(back);
            await w2.close();
            expect(sink2.text()).toBe(text.toString());
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('failure messages name the value', () => {
    // Keeps the helper honest: describe() is what a failing property prints.
    const [v] = parseValues(new TypeContext(), '{a:1}');
    expect(describeValue(v)).toContain('TypeRecord');
  });
});

test('16-digit integers past 2^53 read exactly', () => {
  for (const text of [
    '9131430196079843',
    '-9131430196079843',
    '9007199254740993',
    '9131430196079843((int32,int64,float16))',
    '9999999999999999(uint64)',
  ]) {
    const [v] = parseValues(new TypeContext(), text);
    expect(formatValue(v, 0)).toBe(text);
  }
});
