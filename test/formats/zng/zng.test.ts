// ZNG reader and writer behaviour: exact bytes, typedef numbering, streams,
// control frames, frame thresholds, and the reference's error texts.

import { BufferSink, FormatError, readAll, sourceFromBuffer } from '../../../src/formats/io';
import {
  ControlFormat,
  decodeZng,
  newReader,
  newWriter,
  ZngBufferReader,
  ZngControl,
  zngFormat,
} from '../../../src/formats/zng';
import { Builder, encodeFloat64, encodeInt } from '../../../src/zed';
import { TypeContext } from '../../../src/zed/context';
import {
  Type,
  TypeBytes,
  TypeFloat64,
  TypeInt64,
  TypeNull,
  TypeString,
  TypeTime,
  TypeUint8,
} from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { frames } from './frames';

/** A record value of type t from its fields' bodies (null for null). */
function rec(t: Type, ...fields: (Uint8Array | string | null)[]): Value {
  const b = new Builder();
  for (const f of fields) b.appendBytes(typeof f === 'string' ? Buffer.from(f) : f);
  return Value.fromBytes(t, b.copy());
}

async function write(
  vals: Value[],
  opts: { compress?: boolean; frameThreshold?: number } = {},
): Promise<Buffer> {
  const sink = new BufferSink();
  const w = newWriter(sink, { compress: false, ...opts });
  await w.write(vals);
  await w.close();
  expect(sink.ended).toBe(true);
  return sink.bytes();
}

function hex(s: string): Buffer {
  return Buffer.from(s.replace(/#[^\n]*\n/g, '').replace(/\s/g, ''), 'hex');
}

function fails(f: () => unknown): FormatError {
  try {
    f();
  } catch (e) {
    if (e instanceof FormatError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('writer', () => {
  test('bytes match the reference writer test', async () => {
    const ctx = new TypeContext();
    const t = ctx.lookupTypeRecord([
      { name: '_path', type: TypeString },
      { name: 'ts', type: TypeTime },
      { name: 'd', type: TypeFloat64 },
    ]);
    // The reference test's writer has a zero threshold: a frame per value.
    const out = await write(
      [
        rec(t, 'a', encodeInt(10_000_000_000n), encodeFloat64(1)),
        rec(t, 'xyz', encodeInt(20_000_000_000n), encodeFloat64(1.5)),
      ],
      { frameThreshold: 0 },
    );
    const expected = hex(`
      00 01 00 03 05 5f 70 61 74 68 19 02 74 73 0d 01 64 10
      13 01 1e 12 02 61 06 00 c8 17 a8 04 09 00 00 00 00 00 00 f0 3f
      15 01 1e 14 04 78 79 7a 06 00 90 2f 50 09 09 00 00 00 00 00 00 f8 3f
      ff`);
    expect(out.toString('hex')).toBe(expected.toString('hex'));
  });

  test('nested types are defined depth-first on first use; IDs past 127 are multi-byte', async () => {
    const ctx = new TypeContext();
    const inner = ctx.lookupTypeRecord([{ name: 'x', type: TypeInt64 }]);
    const arr = ctx.lookupTypeArray(inner);
    const outer = ctx.lookupTypeRecord([{ name: 'a', type: arr }]);
    const out = await write([Value.fromBytes(outer, Buffer.from([0x01]))]);
    // {x:int64} = 30, [30] = 31, {a:31} = 32.
    expect(out.subarray(0, 14).toString('hex')).toBe(
      hex('0c 00 00 01 01 78 09 01 1e 00 01 01 61 1f').toString('hex'),
    );
    // 200 distinct record types: the 99th and later have two-byte IDs.
    const vals: Value[] = [];
    for (let i = 0; i < 200; i++) {
      const t = ctx.lookupTypeRecord([{ name: `f${i}`, type: TypeInt64 }]);
      vals.push(rec(t, encodeInt(i)));
    }
    const zng = await write(vals);
    const back = decodeZng(zng, { ctx });
    expect(back.map((v) => v.type)).toEqual(vals.map((v) => v.type));
    expect(back.every((v, i) => v.equals(vals[i]))).toBe(true);
  });

  test('null values, primitives and named types', async () => {
    const ctx = new TypeContext();
    const named = ctx.lookupTypeNamed('port', TypeUint8);
    const r = ctx.lookupTypeRecord([{ name: 's', type: TypeString }]);
    const vals = [
      Value.null(TypeInt64),
      Value.null(TypeNull),
      Value.null(r),
      Value.fromBytes(TypeString, Buffer.alloc(0)),
      Value.fromBytes(named, Buffer.from([80])),
      rec(r, null),
    ];
    const zng = await write(vals);
    const back = decodeZng(zng, { ctx });
    expect(back.length).toBe(vals.length);
    back.forEach((v, i) => {
      expect(v.type).toBe(vals[i].type);
      expect(v.equals(vals[i])).toBe(true);
    });
    // Into a fresh context: the same structure, new objects.
    const ctx2 = new TypeContext();
    const back2 = decodeZng(zng, { ctx: ctx2 });
    expect(back2[4].type).toBe(ctx2.lookupTypeDef('port'));
  });

  test('frames flush at the threshold, types frame before its values frame', async () => {
    const ctx = new TypeContext();
    const vals: Value[] = [];
    for (let i = 0; i < 50; i++) {
      const t = ctx.lookupTypeRecord([{ name: `field${i % 7}`, type: TypeString }]);
      vals.push(rec(t, 'x'.repeat(i)));
    }
    const zng = await write(vals, { frameThreshold: 64 });
    const kinds = frames(zng).map((f) => f.code >> 4);
    // Each flush writes a types frame (when there are new types) then values.
    expect(kinds[0]).toBe(0);
    expect(kinds[1]).toBe(1);
    expect(kinds.filter((k) => k === 1).length).toBeGreaterThan(10);
    for (let i = 0; i < kinds.length - 1; i++) if (kinds[i] === 0) expect(kinds[i + 1]).toBe(1);
    // A flush happens when the values or the types reach the threshold.
    const fs = frames(zng);
    for (let i = 0; i < fs.length - 1; i++) {
      if (fs[i].code >> 4 !== 1) continue;
      const types = i > 0 && fs[i - 1].code >> 4 === 0 ? fs[i - 1].len : 0;
      expect(Math.max(fs[i].len, types)).toBeGreaterThanOrEqual(64);
    }
    expect(decodeZng(zng, { ctx }).every((v, i) => v.equals(vals[i]))).toBe(true);
  });

  test('chunks handed to the sink stay intact while the writer goes on', async () => {
    // A sink that keeps the chunks it is given without copying them (as a
    // socket's queue does) must end up with the same bytes as one that
    // copies them at once: the writer never reuses a buffer it handed out.
    const ctx = new TypeContext();
    const vals: Value[] = [];
    for (let i = 0; i < 3000; i++) {
      const t = ctx.lookupTypeRecord([{ name: `f${i % 400 === 0 ? i : 0}`, type: TypeString }]);
      vals.push(rec(t, `value ${i} `.repeat(1 + (i % 30)), null));
    }
    for (const compress of [false, true]) {
      const kept: Buffer[] = [];
      const keeping = {
        write: async (c: Buffer) => void kept.push(c),
        end: async () => undefined,
      };
      const copying = new BufferSink();
      for (const sink of [keeping, copying]) {
        const w = newWriter(sink, { compress, frameThreshold: 2000 });
        for (let i = 0; i < vals.length; i += 250) {
          await w.write(vals.slice(i, i + 250));
          if (i === 1500) await w.endStream();
        }
        await w.writeControl('between', ControlFormat.String);
        await w.close();
      }
      const got = Buffer.concat(kept);
      expect(got.equals(copying.bytes())).toBe(true);
      expect(frames(got).length).toBeGreaterThan(50);
      const back = decodeZng(got, { ctx });
      expect(back.length).toBe(vals.length);
      expect(back.every((v, i) => v.equals(vals[i]))).toBe(true);
    }
  });

  test('a value bigger than the threshold gets a frame of its own', async () => {
    const ctx = new TypeContext();
    const t = ctx.lookupTypeRecord([{ name: 's', type: TypeString }]);
    const big = rec(t, 'y'.repeat(1 << 20));
    const zng = await write([rec(t, 'a'), big, rec(t, 'b')], { frameThreshold: 1000 });
    const back = decodeZng(zng, { ctx });
    expect(back.length).toBe(3);
    expect(back[1].equals(big)).toBe(true);
    // Compressed, it shrinks to almost nothing.
    const packed = await write([big], { compress: true });
    expect(packed.length).toBeLessThan(10000);
    expect(decodeZng(packed, { ctx })[0].equals(big)).toBe(true);
  });

  test('incompressible frames are written uncompressed', async () => {
    let x = 12345;
    const noise = Buffer.alloc(5000);
    for (let i = 0; i < noise.length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      noise[i] = x >>> 24;
    }
    const zng = await write([Value.fromBytes(TypeBytes, noise)], {
      compress: true,
    });
    expect(decodeZng(zng, { ctx: new TypeContext() })[0].bytes()!.equals(noise)).toBe(true);
    expect(frames(zng).every((f) => (f.code & 0x40) === 0)).toBe(true);
  });

  test('endStream resets type IDs and reports seekable positions', async () => {
    const ctx = new TypeContext();
    const a = ctx.lookupTypeRecord([{ name: 'a', type: TypeString }]);
    const b = ctx.lookupTypeRecord([{ name: 'b', type: TypeInt64 }]);
    const sink = new BufferSink();
    const w = newWriter(sink, { compress: false });
    expect(w.position).toBe(0);
    await w.write([rec(a, 'hello'), rec(b, encodeInt(10))]);
    await w.endStream();
    const p1 = w.position;
    await w.endStream(); // nothing written: no second marker
    expect(w.position).toBe(p1);
    await w.write([rec(b, encodeInt(11))]);
    await w.endStream();
    const p2 = w.position;
    await w.write([rec(a, 'again')]);
    await w.close();
    const zng = sink.bytes();
    expect(zng[p1 - 1]).toBe(0xff);
    expect(zng[p2 - 1]).toBe(0xff);
    expect(zng[zng.length - 1]).toBe(0xff);
    // The second stream defines {b:int64} as 30 again.
    expect(zng.subarray(p1, p1 + 9).toString('hex')).toBe('0500000101620914' + '00');
    // Each stream decodes on its own from its offset.
    const from = (off: number) =>
      decodeZng(zng, { ctx, offset: off }).map((v) => v.bytes()!.toString('hex'));
    expect(from(p1)).toEqual(
      [rec(b, encodeInt(11)), rec(a, 'again')].map((v) => v.bytes()!.toString('hex')),
    );
    expect(from(p2)).toEqual([rec(a, 'again').bytes()!.toString('hex')]);
    expect(decodeZng(zng, { ctx, offset: p1, end: p2 }).length).toBe(1);
    expect(decodeZng(zng, { ctx }).length).toBe(4);
  });

  test('empty output has no end-of-stream marker', async () => {
    expect((await write([])).length).toBe(0);
  });

  test('the zng format entry', async () => {
    expect(zngFormat.name).toBe('zng');
    expect(zngFormat.mimeTypes[0]).toBe('application/x-zng');
    const ctx = new TypeContext();
    const sink = new BufferSink();
    const w = zngFormat.newWriter!(sink, {});
    await w.write([Value.fromBytes(TypeString, Buffer.from('hi'))]);
    await w.close();
    const vals = await readAll(zngFormat.newReader!(sourceFromBuffer(sink.bytes()), { ctx }));
    expect(vals.map((v) => v.bytes()!.toString())).toEqual(['hi']);
  });
});

describe('reader', () => {
  test('concatenated streams (the reference multiple.yaml input)', async () => {
    const zng = Buffer.from('BQAAAQFhCRQAHgMCAv8FAAABAWEJFAAeAwIC/w==', 'base64');
    const ctx = new TypeContext();
    const vals = await readAll(newReader(sourceFromBuffer(zng, 3), { ctx }));
    expect(vals.length).toBe(2);
    expect(vals[0].type).toBe(vals[1].type);
    expect(vals[0].type).toBe(ctx.lookupTypeRecord([{ name: 'a', type: TypeInt64 }]));
  });

  test('a repeated typedef in a stream reuses the existing ID', () => {
    // {a:int64} twice, then {b:int64}: the third typedef gets ID 31.
    const zng = hex(`
      0f 00 00 01 01 61 09 00 01 01 61 09 00 01 01 62 09
      18 00 1e 03 02 02 1f 03 02 04
      ff`);
    const ctx = new TypeContext();
    const vals = decodeZng(zng, { ctx });
    expect(vals.map((v) => v.type)).toEqual([
      ctx.lookupTypeRecord([{ name: 'a', type: TypeInt64 }]),
      ctx.lookupTypeRecord([{ name: 'b', type: TypeInt64 }]),
    ]);
  });

  test('a stream without an end-of-stream marker still reads', () => {
    const zng = Buffer.from('BQAAAQFhCRQAHgMCAg==', 'base64');
    expect(decodeZng(zng, { ctx: new TypeContext() }).length).toBe(1);
  });

  test('values point into the frame, one Value per value', async () => {
    const ctx = new TypeContext();
    const t = ctx.lookupTypeRecord([{ name: 's', type: TypeString }]);
    const zng = await write([rec(t, 'one'), rec(t, 'two')]);
    const [a, b] = decodeZng(zng, { ctx });
    expect(a.buf).toBe(zng);
    expect(b.buf).toBe(zng);
    expect(zng.subarray(a.off, a.off + a.len).toString('hex')).toBe('046f6e65');
  });

  test('control frames arrive in order with values, through onControl or readPayload', async () => {
    const ctx = new TypeContext();
    const sink = new BufferSink();
    const w = newWriter(sink, { compress: true });
    await w.writeControl({ type: 'QueryChannelSet', value: { channel_id: 0 } });
    await w.write([Value.fromBytes(TypeString, Buffer.from('a'))]);
    await w.writeControl('{"x":1}', ControlFormat.JSON);
    await w.write([Value.fromBytes(TypeString, Buffer.from('b'))]);
    await w.writeControl(Buffer.from('z'.repeat(500)), ControlFormat.Binary);
    await w.writeControl({ type: 'QueryChannelEnd', value: { channel_id: 0 } });
    await w.close();
    const zng = sink.bytes();
    const seen: string[] = [];
    const r = newReader(sourceFromBuffer(zng, 5), {
      ctx,
      onControl: (format, body) => {
        seen.push(`${format}:${body.length > 100 ? body.length : body.toString()}`);
      },
    });
    for (let batch = await r.read(); batch; batch = await r.read()) {
      for (const v of batch) seen.push(`v:${v.bytes()!.toString()}`);
    }
    expect(seen).toEqual([
      '2:{channel_id:0}(=QueryChannelSet)\n',
      'v:a',
      '1:{"x":1}',
      'v:b',
      '4:500',
      '2:{channel_id:0}(=QueryChannelEnd)\n',
    ]);
    // The long binary control was compressed.
    expect(frames(zng).some((f) => f.code >> 4 === 6)).toBe(true);
    const br = new ZngBufferReader(zng, { ctx });
    const first = br.next();
    expect(first).toBeInstanceOf(ZngControl);
    expect((first as ZngControl).format).toBe(ControlFormat.ZSON);
    expect(Array.isArray(br.next())).toBe(true);
  });
});

describe('errors', () => {
  const ctx = new TypeContext();
  const dec = (zng: Buffer, maxFrameSize?: number) => () => decodeZng(zng, { ctx, maxFrameSize });
  const cases: [string, string, string, number][] = [
    ['version bit', '80 00', 'zngio: encountered wrong version bit in framing', 0],
    ['frame type 3', 'ff 30 00', 'unknown ZNG message frame type: 3', 1],
    ['unknown typedef', '01 00 09', 'unknown ZNG typedef code: 9', 2],
    [
      'undefined type ID in typedef',
      '02 00 01 1e',
      'type id (30) not in type context (size 30)',
      3,
    ],
    ['unimplemented primitive', '02 00 01 04', 'primitive type ID 4 not implemented', 3],
    ['empty union', '02 00 04 00', 'type union: zero types not allowed', 2],
    ['duplicate field', '08 00 00 02 01 61 09 01 61 09', 'duplicate field: "a"', 2],
    [
      'primitive type name',
      '08 00 07 05 69 6e 74 36 34 09',
      'bad type name "int64": primitive type name',
      2,
    ],
    ['invalid UTF-8 type name', '04 00 07 01 ff 09', 'bad type name "\\xff": invalid UTF-8', 3],
    ['truncated typedef', '03 00 00 02 01', 'malformed zng record', 4],
    ['undefined type ID in value', '12 00 1e 01', 'zngio: type ID 30 not in context', 2],
    ['unimplemented primitive value', '12 00 04 01', 'zngio: type ID 4 not in context', 2],
    ['value past its frame', '12 00 19 05', 'malformed zng record', 4],
    ['value tag cut off', '11 00 19', 'malformed zng record', 3],
    ['empty control frame', '20 00', 'malformed zng record', 2],
    ['truncated frame', '15 00 19 02 61', 'truncated input', 0],
    ['truncated frame length', '15 80', 'unexpected EOF', 0],
    ['unknown compression', '42 00 01 05', 'zngio: unknown compression format 0x1', 0],
    [
      'bad LZ4 block',
      '54 00 00 05 50 61',
      'zngio: lz4: invalid source or destination buffer too short',
      0,
    ],
    ['short LZ4 block', '54 00 00 05 10 61', 'zngio: got 1 uncompressed bytes, expected 5', 0],
  ];
  test.each(cases)('%s', (_name, input, message, offset) => {
    const e = fails(dec(hex(input)));
    expect(e.format).toBe('zng');
    expect(e.message).toBe(message);
    expect(e.offset).toBe(offset);
  });

  test('frames over the maximum size (the reference big-value.yaml text)', () => {
    const e = fails(dec(hex('17 80 88 01'), 10000));
    expect(e.message).toBe('zngio: frame length (278535) exceeds maximum allowed (10000)');
  });

  test('the streaming reader reports the same errors with stream offsets', async () => {
    const good = Buffer.from('BQAAAQFhCRQAHgMCAv8=', 'base64');
    const bad = Buffer.concat([good, hex('12 00 1e 01')]);
    const r = newReader(sourceFromBuffer(bad, 2), { ctx });
    await expect(readAll(r)).rejects.toMatchObject({
      format: 'zng',
      message: 'zngio: type ID 30 not in context',
      offset: good.length + 2,
    });
    const cut = newReader(sourceFromBuffer(good.subarray(0, 12), 5), { ctx });
    await expect(readAll(cut)).rejects.toMatchObject({ message: 'truncated input', offset: 7 });
  });
});
