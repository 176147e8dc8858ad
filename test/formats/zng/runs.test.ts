// The ZNG writer copies runs of values that lie end to end in one buffer,
// each after its tag and one spare byte (as materialized rows and values
// read from ZNG frames do), in one piece: the output must be the bytes it
// writes for the same values each in a buffer of its own, whatever the
// layout around them (gaps, wrong tags, other buffers, frame boundaries).

import fc from 'fast-check';
import { BufferSink } from '../../../src/formats/io';
import { newWriter } from '../../../src/formats/zng';
import { TypeContext } from '../../../src/zed/context';
import { TypeString } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { putUvarint } from '../../../src/zed/zcode';
import { arbType, arbValueOf } from '../../helpers/arbitrary';

type Place = 'run' | 'gap' | 'badtag' | 'own';

/** The values placed in one shared buffer as the plan says (nulls and 'own' ones apart). */
function lay(vals: Value[], places: Place[]): Value[] {
  const parts: Buffer[] = [];
  const at: number[] = [];
  let size = 0;
  vals.forEach((v, i) => {
    const place = places[i % places.length];
    if (v.len < 0 || place === 'own') {
      at.push(-1);
      return;
    }
    const head = Buffer.alloc(12);
    let o = 0;
    if (place === 'gap') head[o++] = 0xee;
    // A spare byte the writer must not copy as it is.
    head[o++] = 0x80 | (i & 0x7f);
    o = putUvarint(head, o, v.len + 1);
    // A tag that does not say the value's length.
    if (place === 'badtag') head[o - 1] ^= 1;
    parts.push(head.subarray(0, o), v.buf.subarray(v.off, v.off + v.len));
    at.push(size + o);
    size += o + v.len;
  });
  const buf = Buffer.concat(parts);
  return vals.map((v, i) => (at[i] < 0 ? v.copy() : new Value(v.type, buf, at[i], v.len)));
}

async function write(vals: Value[], frameThreshold: number, batch: number): Promise<Buffer> {
  const sink = new BufferSink();
  const w = newWriter(sink, { compress: false, frameThreshold });
  for (let i = 0; i < vals.length; i += batch) await w.write(vals.slice(i, i + batch));
  await w.close();
  return sink.bytes();
}

/** Writing the values laid out by l gives the bytes of writing them apart. */
async function sameBytes(
  vals: Value[],
  l: { places: Place[]; frameThreshold: number; batch: number },
) {
  const apart = await write(
    vals.map((v) => v.copy()),
    l.frameThreshold,
    l.batch,
  );
  expect(await write(lay(vals, l.places), l.frameThreshold, l.batch)).toEqual(apart);
}

const places = fc.array(fc.constantFrom<Place>('run', 'run', 'run', 'gap', 'badtag', 'own'), {
  minLength: 1,
  maxLength: 8,
});
const layout = fc.record({
  places,
  frameThreshold: fc.constantFrom(0, 7, 100, 512 * 1024),
  batch: fc.integer({ min: 1, max: 40 }),
});

test('values laid out as runs are written as the same bytes as values apart', async () => {
  const ctx = new TypeContext();
  // Values of one or two types, so runs of one type form.
  const values = fc.tuple(arbType(ctx), arbType(ctx)).chain(([a, b]) =>
    fc.array(
      fc.oneof({ weight: 5, arbitrary: arbValueOf(a) }, { weight: 1, arbitrary: arbValueOf(b) }),
      {
        maxLength: 40,
      },
    ),
  );
  await fc.assert(fc.asyncProperty(values, layout, sameBytes), { numRuns: 150 });
});

test('the same for strings with tags of one, two and three bytes', async () => {
  const str = fc
    .oneof(
      fc.string({ maxLength: 20 }),
      fc.string({ minLength: 120, maxLength: 300 }),
      fc.constant('x'.repeat(17000)),
    )
    .map((s) => Value.fromBytes(TypeString, Buffer.from(s, 'utf8')));
  await fc.assert(fc.asyncProperty(fc.array(str, { maxLength: 30 }), layout, sameBytes), {
    numRuns: 80,
  });
});
