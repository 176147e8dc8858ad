// Fuzzing the line reader, and checking it against a plain split.

import fc from 'fast-check';
import { fuzzInputs, fuzzReader, readWith } from '../zeek/support';

test('line reader fuzz', () =>
  fuzzReader('line', fuzzInputs([Buffer.from('a\nb\r\n\nc')], ['\n', '\r', '\r\n', 'x', '\xff']), {
    lines: true,
  }));

test('lines are the input split on newlines, less a final empty one and CRs before LF', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.string({ unit: 'binary', maxLength: 8 }), { maxLength: 10 }),
      fc.integer({ min: 1, max: 16 }),
      async (parts, chunk) => {
        const text = parts.join('\n');
        const vals = await readWith('line', text, undefined, { chunk });
        let want = text.split('\n');
        if (want[want.length - 1] === '') want.pop();
        want = want.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
        expect(vals.map((v) => v.bytes()!.toString('utf8'))).toEqual(want);
      },
    ),
    { numRuns: 300 },
  );
});
