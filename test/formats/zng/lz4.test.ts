// LZ4 block codecs, the C library's addon and the JavaScript one, each:
// round trips, bounds safety, and interoperability with the reference LZ4
// implementation (blocks in the reference's ZNG files and, where the lz4
// command is installed, its compressor and decompressor); and each reads
// what the other writes.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import {
  cLz4Compress,
  cLz4Decompress,
  jsLz4Compress,
  jsLz4Decompress,
  lz4Codec,
  lz4CompressBound,
  lz4Decompress as runningDecompress,
} from '../../../src/formats/zng/lz4';
import { exited, onLines, spawnTs } from '../../lake/spawn-ts';
import { compressedBlocks } from './frames';

/** Deterministic pseudo-random bytes (xorshift32). */
function noise(n: number, seed = 2463534242): Buffer {
  const out = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

type Compress = typeof jsLz4Compress;
type Decompress = typeof jsLz4Decompress;

const CODECS: [string, Compress, Decompress][] = [
  ['js', jsLz4Compress, jsLz4Decompress],
  ['c', cLz4Compress, cLz4Decompress],
];

// The codec under test, set by each codec's describe block.
let lz4Compress: Compress;
let lz4Decompress: Decompress;

test('the C codec runs unless ZLAKE_LZ4=js (npm built the lz4 addon)', () => {
  // Without python3, make and g++ at install, npm skips the optional addon
  // and every LZ4 block goes through the JavaScript codec, 2-4x slower.
  expect(lz4Codec).toBe(process.env.ZLAKE_LZ4 === 'js' ? 'js' : 'c');
});

test('ZLAKE_LZ4 chooses the codec a process runs: js forces JavaScript, c the addon', async () => {
  const codecWith = async (value: string): Promise<string> => {
    const saved = process.env.ZLAKE_LZ4;
    process.env.ZLAKE_LZ4 = value;
    try {
      const child = spawnTs(join(__dirname, 'lz4-codec-child.ts'), []);
      const lines: string[] = [];
      onLines(child, (l) => lines.push(l));
      await exited(child);
      return lines.join('\n');
    } finally {
      if (saved === undefined) delete process.env.ZLAKE_LZ4;
      else process.env.ZLAKE_LZ4 = saved;
    }
  };
  expect(await codecWith('js')).toBe('js');
  expect(await codecWith('c')).toBe('c');
}, 30000);

test('a block the C decoder refuses is decoded as the reference decodes it', () => {
  // "a", a match of 4 at offset 1, "b": the match ends the block sooner
  // than the format allows, which the reference's Go decoder accepts.
  const late = Buffer.from([0x10, 0x61, 1, 0, 0x10, 0x62]);
  const out = Buffer.alloc(100);
  expect(runningDecompress(late, 0, late.length, out, 0, 100)).toBe(6);
  expect(out.subarray(0, 6).toString()).toBe('aaaaab');
});

test('each codec reads the blocks the other writes', () => {
  fc.assert(
    fc.property(repetitive, (src) => {
      for (const [[, c], [, , d]] of [
        [CODECS[0], CODECS[1]],
        [CODECS[1], CODECS[0]],
      ]) {
        const dst = Buffer.alloc(lz4CompressBound(src.length));
        const n = c(src, 0, src.length, dst, 0, dst.length);
        const out = Buffer.alloc(src.length);
        expect(d(dst, 0, n, out, 0, src.length)).toBe(src.length);
        expect(out.equals(src)).toBe(true);
      }
    }),
    { numRuns: 300 },
  );
});

function compress(src: Uint8Array): Buffer {
  const dst = Buffer.alloc(lz4CompressBound(src.length));
  const n = lz4Compress(src, 0, src.length, dst, 0, dst.length);
  expect(n).toBeGreaterThan(0);
  return dst.subarray(0, n);
}

function decompress(block: Uint8Array, size: number): Buffer {
  const out = Buffer.alloc(size);
  const n = lz4Decompress(block, 0, block.length, out, 0, size);
  expect(n).toBe(size);
  return out;
}

/** Inputs with the repetition real data has: runs, repeats, near-repeats. */
const repetitive = fc
  .array(
    fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc
        .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 600 }))
        .map(([b, n]) => new Uint8Array(n).fill(b)),
      fc
        .tuple(fc.uint8Array({ minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 40 }))
        .map(([unit, times]) => {
          const out = new Uint8Array(unit.length * times);
          for (let i = 0; i < times; i++) out.set(unit, i * unit.length);
          return out;
        }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => Buffer.concat(parts));

describe.each(CODECS)('%s codec', (name, c, d) => {
  beforeAll(() => {
    lz4Compress = c;
    lz4Decompress = d;
  });

  describe('round trip', () => {
    test('random bytes', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 5000 }), (src) => {
          expect(decompress(compress(src), src.length).equals(Buffer.from(src))).toBe(true);
        }),
        { numRuns: 300 },
      );
    });

    test('repetitive bytes', () => {
      fc.assert(
        fc.property(repetitive, (src) => {
          const block = compress(src);
          expect(decompress(block, src.length).equals(src)).toBe(true);
        }),
        { numRuns: 500 },
      );
    });

    test('ranges inside larger buffers', () => {
      fc.assert(
        fc.property(repetitive, fc.nat(50), fc.nat(50), (src, pre, post) => {
          const padded = Buffer.concat([Buffer.alloc(pre, 7), src, Buffer.alloc(post, 9)]);
          const dst = Buffer.alloc(lz4CompressBound(src.length) + 30, 0xee);
          const n = lz4Compress(padded, pre, pre + src.length, dst, 30, dst.length);
          expect(dst.subarray(0, 30).every((b) => b === 0xee)).toBe(true);
          const out = Buffer.alloc(src.length + 20, 0xdd);
          expect(lz4Decompress(dst, 30, 30 + n, out, 10, 10 + src.length)).toBe(src.length);
          expect(out.subarray(10, 10 + src.length).equals(src)).toBe(true);
          expect(out.subarray(0, 10).every((b) => b === 0xdd)).toBe(true);
          expect(out.subarray(10 + src.length).every((b) => b === 0xdd)).toBe(true);
        }),
        { numRuns: 200 },
      );
    });

    test('long matches and literals, and matches at the 64 KiB window edge', () => {
      const unit = Buffer.from(Array.from({ length: 70000 }, (_, i) => (i * 7919) % 251));
      const src = Buffer.concat([unit, unit, Buffer.alloc(100000, 3), unit.subarray(0, 5000)]);
      const block = compress(src);
      expect(block.length).toBeLessThan(src.length / 2);
      expect(decompress(block, src.length).equals(src)).toBe(true);
    });

    test('compression shrinks repetitive data and reports failure when output does not fit', () => {
      const text = Buffer.from(
        '{ts:2018-03-24T17:15:21.255387Z,uid:"C8Tful1TvM3Zf5x8fl"}\n'.repeat(200),
      );
      const block = compress(text);
      expect(block.length).toBeLessThan(text.length / 10);
      const random = noise(1000);
      const dst = Buffer.alloc(random.length);
      // A limit below the input size: incompressible input does not fit.
      expect(lz4Compress(random, 0, random.length, dst, 0, random.length - 1)).toBe(0);
    });
  });

  describe('malformed blocks', () => {
    test('truncations, byte flips and random blocks never overrun and never throw', () => {
      const src = Buffer.from('abcdefghabcdefghabcdefgh-0123456789-0123456789-xyz'.repeat(20));
      const block = compress(src);
      fc.assert(
        fc.property(
          fc.oneof(
            fc.nat(block.length).map((n) => block.subarray(0, n)),
            fc.tuple(fc.nat(block.length - 1), fc.integer({ min: 0, max: 255 })).map(([i, b]) => {
              const m = Buffer.from(block);
              m[i] = b;
              return m;
            }),
            fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
          ),
          fc.integer({ min: 0, max: 2000 }),
          (bad, size) => {
            const out = Buffer.alloc(size + 16, 0xaa);
            const n = lz4Decompress(bad, 0, bad.length, out, 8, 8 + size);
            expect(n).toBeGreaterThanOrEqual(-1);
            expect(n).toBeLessThanOrEqual(size);
            expect(out.subarray(0, 8).every((b) => b === 0xaa)).toBe(true);
            expect(out.subarray(8 + size).every((b) => b === 0xaa)).toBe(true);
          },
        ),
        { numRuns: 3000 },
      );
    });

    test('damaged blocks of larger inputs read nothing outside their range', () => {
      // Blocks with long literal runs and matches of every length, so the
      // decoder's wide-copy paths run; each damaged block is decoded where it
      // lies inside other bytes and on its own: any read outside the block's
      // range or write outside the output's would make the two differ.
      fc.assert(
        fc.property(
          repetitive.filter((b) => b.length > 40),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
          fc.nat(),
          fc.integer({ min: -40, max: 40 }),
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          (src, flips, cut, slack, around) => {
            const bad = Buffer.from(compress(src));
            for (const [i, b] of flips) bad[i % bad.length] = b;
            const block = bad.subarray(0, bad.length - (cut % 4 === 0 ? cut % bad.length : 0));
            const size = Math.max(0, src.length + slack);
            const embedded = Buffer.concat([around.subarray(0, 16), block, around.subarray(16)]);
            const a = Buffer.alloc(size + 64, 0xaa);
            const b = Buffer.alloc(size, 0xaa);
            const na = lz4Decompress(embedded, 16, 16 + block.length, a, 32, 32 + size);
            const nb = lz4Decompress(Buffer.from(block), 0, block.length, b, 0, size);
            expect(na).toBe(nb);
            expect(na).toBeGreaterThanOrEqual(-1);
            expect(na).toBeLessThanOrEqual(size);
            if (nb >= 0) expect(a.subarray(32, 32 + nb).equals(b.subarray(0, nb))).toBe(true);
            expect(a.subarray(0, 32).every((x) => x === 0xaa)).toBe(true);
            expect(a.subarray(32 + size).every((x) => x === 0xaa)).toBe(true);
            if (flips.length === 0 && cut % 4 !== 0 && slack >= 0) {
              expect(na).toBe(src.length);
              expect(a.subarray(32, 32 + na).equals(src)).toBe(true);
            }
          },
        ),
        { numRuns: 2000 },
      );
    });

    test('overlapping matches of every offset and length decode exactly', () => {
      // A literal run, one match of offset 1..20 and length 4..80, and 20
      // more literals (room for the decoder's wide copies), against a
      // byte-by-byte model of LZ4's copy.
      const tail = Buffer.from('abcdefghijklmnopqrst');
      for (let offset = 1; offset <= 20; offset++) {
        for (let len = 4; len <= 80; len++) {
          const lits = Buffer.from(Array.from({ length: 24 }, (_, i) => 65 + i));
          const ml = len - 4;
          const block = [0xf0 | Math.min(ml, 15), 24 - 15, ...lits, offset, 0];
          if (ml >= 15) {
            let r = ml - 15;
            while (r >= 255) {
              block.push(255);
              r -= 255;
            }
            block.push(r);
          }
          block.push(0xf0, tail.length - 15, ...tail);
          const want = [...lits];
          for (let i = 0; i < len; i++) want.push(want[want.length - offset]);
          want.push(...tail);
          const out = Buffer.alloc(want.length + 30, 0xee);
          const n = lz4Decompress(Buffer.from(block), 0, block.length, out, 0, want.length);
          expect(n).toBe(want.length);
          expect([...out.subarray(0, n)]).toEqual(want);
          expect(out.subarray(n).every((x) => x === 0xee)).toBe(true);
        }
      }
    });

    test('specific errors', () => {
      const out = Buffer.alloc(100);
      // Empty block.
      expect(lz4Decompress(Buffer.alloc(0), 0, 0, out, 0, 100)).toBe(-1);
      // Offset 0.
      expect(lz4Decompress(Buffer.from([0x10, 0x61, 0, 0, 0x00]), 0, 5, out, 0, 100)).toBe(-1);
      // Offset before the start of the output.
      expect(lz4Decompress(Buffer.from([0x10, 0x61, 2, 0, 0x00]), 0, 5, out, 0, 100)).toBe(-1);
      // Output too small.
      expect(lz4Decompress(Buffer.from([0x30, 0x61, 0x62, 0x63]), 0, 4, out, 0, 2)).toBe(-1);
      // A valid block: "a", a match of 4 at offset 1, then 8 literals (the
      // last match starts 12 bytes before the end, as the format asks).
      const valid = [0x10, 0x61, 1, 0, 0x80, ...Buffer.from('bcdefghi')];
      expect(lz4Decompress(Buffer.from(valid), 0, valid.length, out, 0, 100)).toBe(13);
      expect(out.subarray(0, 13).toString()).toBe('aaaaabcdefghi');
      // A match nearer the end than that: the JavaScript codec decodes it
      // (as the reference's Go decoder does), the C library's safe decoder
      // refuses it. No LZ4 encoder writes such a block.
      const late = Buffer.from([0x10, 0x61, 1, 0, 0x10, 0x62]);
      expect(lz4Decompress(late, 0, 6, out, 0, 100)).toBe(name === 'js' ? 6 : -1);
    });
  });

  const samples = join(__dirname, '../../../../shared/sample-data/zng');

  test('decodes every block the reference compressed in the sample files', () => {
    let blocks = 0;
    for (const f of readdirSync(samples)) {
      const zng = gunzipSync(readFileSync(join(samples, f)));
      for (const { format, block, size } of compressedBlocks(zng)) {
        expect(format).toBe(0); // LZ4
        const out = Buffer.alloc(size);
        expect(lz4Decompress(block, 0, block.length, out, 0, size)).toBe(size);
        // Re-compressing with ours round-trips the same bytes.
        expect(decompress(compress(out), size).equals(out)).toBe(true);
        blocks++;
      }
    }
    expect(blocks).toBeGreaterThan(14);
  });

  // The lz4 command's legacy frame format is a magic number followed by
  // blocks, each prefixed with its compressed length: plain LZ4 blocks with
  // no checksums, so it carries ours to and from the reference codec as is.
  const lz4Cmd = ['/usr/bin/lz4', '/usr/local/bin/lz4'].find((p) => existsSync(p));
  const withLz4 = lz4Cmd ? describe : describe.skip;

  withLz4('interoperability with the lz4 command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zlake-lz4-'));
    const inputs = [
      Buffer.alloc(0),
      Buffer.from('x'),
      Buffer.from('hello hello hello hello hello hello'),
      gunzipSync(readFileSync(join(samples, '../zng-uncompressed/analyzer.zng.gz'))).subarray(
        0,
        1 << 20,
      ),
      Buffer.from(Array.from({ length: 300000 }, (_, i) => ((i * 2654435761) >>> 27) + (i % 3))),
      noise(100000),
    ];

    function legacyFrame(block: Buffer): Buffer {
      const head = Buffer.alloc(8);
      head.writeUInt32LE(0x184c2102, 0);
      head.writeUInt32LE(block.length, 4);
      return Buffer.concat([head, block]);
    }

    test.each(inputs.map((b, i) => [i, b]))('input %d: lz4 decodes our block', (i, src) => {
      const file = join(dir, `ours${i}.lz4`);
      const block = compress(src as Buffer);
      writeFileSync(file, legacyFrame(block));
      const back = execFileSync(lz4Cmd!, ['-d', '-c', file], { maxBuffer: 1 << 26 });
      expect(back.equals(src as Buffer)).toBe(true);
    });

    test.each(inputs.map((b, i) => [i, b]))(
      'input %d: we decode lz4 -l and -l -9 blocks',
      (i, src) => {
        const input = join(dir, `in${i}`);
        writeFileSync(input, src as Buffer);
        for (const level of ['-1', '-9']) {
          const frame = execFileSync(lz4Cmd!, ['-l', level, '-c', input], { maxBuffer: 1 << 26 });
          expect(frame.readUInt32LE(0)).toBe(0x184c2102);
          const out: Buffer[] = [];
          for (let p = 4; p < frame.length;) {
            const n = frame.readUInt32LE(p);
            const dst = Buffer.alloc(8 << 20);
            const m = lz4Decompress(frame, p + 4, p + 4 + n, dst, 0, dst.length);
            expect(m).toBeGreaterThanOrEqual(0);
            out.push(dst.subarray(0, m));
            p += 4 + n;
          }
          expect(Buffer.concat(out).equals(src as Buffer)).toBe(true);
        }
      },
    );
  });
});
