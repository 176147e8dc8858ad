// Reading query responses (values, QueryStats, QueryError, channel and
// warning messages in a ZNG stream), assembling query text from -I files,
// and the reference's parse error text.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  concatSource,
  formatProgress,
  parseErrorText,
  QueryError,
  QueryReader,
} from '../../src/client';
import { BufferSink, readAll, sourceFromBuffer } from '../../src/formats/io';
import { ControlFormat, ZngWriter } from '../../src/formats/zng';
import { formatValue, parseValues } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed/context';

type Step = { zson: string } | { ctrl: string; value: unknown } | { raw: string; format: number };

/** A response stream as the service writes it. */
async function response(steps: Step[]): Promise<Buffer> {
  const sink = new BufferSink();
  const w = new ZngWriter(sink);
  for (const s of steps) {
    if ('zson' in s) await w.write(parseValues(new TypeContext(), s.zson));
    else if ('ctrl' in s) await w.writeControl({ type: s.ctrl, value: s.value });
    else await w.writeControl(s.raw, s.format);
  }
  await w.close();
  return sink.bytes();
}

const stats = {
  start_time: { sec: 1, ns: 0 },
  update_time: { sec: 2, ns: 0 },
  bytes_read: 32889,
  bytes_matched: 32889,
  records_read: 1000,
  records_matched: 1000,
};

describe('QueryReader', () => {
  test('values pass, channel messages are dropped, the last stats are kept', async () => {
    const bytes = await response([
      { ctrl: 'QueryChannelSet', value: { channel_id: 0 } },
      { zson: '{a:1} {a:2}' },
      { ctrl: 'QueryStats', value: { ...stats, records_read: 5 } },
      { zson: '"x"' },
      { ctrl: 'QueryChannelEnd', value: { channel_id: 0 } },
      // The reference's ZNG form: the counts in an embedded Progress record.
      {
        raw: '{start_time:2023-11-22T06:13:25.659661Z,update_time:2023-11-22T06:13:25.662255Z,Progress:{bytes_read:32889,bytes_matched:32889,records_read:1000,records_matched:1000}(=Progress)}(=QueryStats)',
        format: ControlFormat.ZSON,
      },
    ]);
    let closed = false;
    const q = new QueryReader(sourceFromBuffer(bytes, 7), () => (closed = true));
    const vals = await readAll(q);
    expect(vals.map((v) => formatValue(v))).toEqual(['{a:1}', '{a:2}', '"x"']);
    expect(q.progress).toEqual({
      bytes_read: 32889,
      bytes_matched: 32889,
      records_read: 1000,
      records_matched: 1000,
    });
    expect(formatProgress(q.progress!)).toBe(
      '{bytes_read:32889,bytes_matched:32889,records_read:1000,records_matched:1000}',
    );
    await q.close();
    expect(closed).toBe(true);
  });

  test('a QueryError ends the query with its message, after the values before it', async () => {
    const bytes = await response([
      { zson: '{a:1}' },
      { ctrl: 'QueryError', value: { error: 'division by zero' } },
    ]);
    const q = new QueryReader(sourceFromBuffer(bytes));
    expect((await q.read())!.map((v) => formatValue(v))).toEqual(['{a:1}']);
    await expect(q.read()).rejects.toEqual(new QueryError('division by zero'));
  });

  test('warnings are collected and reported as they come', async () => {
    const bytes = await response([
      { ctrl: 'QueryWarning', value: { warning: 'first' } },
      { zson: '1' },
      { ctrl: 'QueryWarning', value: { warning: 'second' } },
    ]);
    const seen: string[] = [];
    const q = new QueryReader(sourceFromBuffer(bytes), undefined, (m) => seen.push(m));
    expect(await readAll(q)).toHaveLength(1);
    expect(seen).toEqual(['first', 'second']);
    expect(q.warnings).toEqual(['first', 'second']);
  });

  test('unknown and non-ZSON control messages are errors, as in the reference', async () => {
    const odd = await response([{ ctrl: 'Surprise', value: { x: 1 } }]);
    await expect(readAll(new QueryReader(sourceFromBuffer(odd)))).rejects.toThrow(
      'unsupported control message: {x:1}(=Surprise)',
    );
    const json = await response([{ raw: '{}', format: ControlFormat.JSON }]);
    await expect(readAll(new QueryReader(sourceFromBuffer(json)))).rejects.toThrow(
      'unsupported app encoding: 1',
    );
    const bad = await response([{ raw: '{', format: ControlFormat.ZSON }]);
    await expect(readAll(new QueryReader(sourceFromBuffer(bad)))).rejects.toThrow(
      /^unable to parse Zed control message: .* \(\{\)$/,
    );
  });

  test('a truncated stream is a format error, not a hang', async () => {
    const bytes = await response([{ zson: '{a:1} {a:2}' }]);
    const q = new QueryReader(sourceFromBuffer(bytes.subarray(0, bytes.length - 3)));
    await expect(readAll(q)).rejects.toThrow();
  });
});

describe('query text', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'zlake-query-text-'));
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const good = file('good.zed', 'type mystring=string\n');
  const badSingle = file('bad-single-line.zed', 'from test \\ count()\n');
  const badMulti = file('bad-multiple-lines.zed', 'from\ntest \\ count()\n');

  test('-I files come first, each followed by a newline', async () => {
    const { text, info } = await concatSource([good], 'count()');
    expect(text).toBe('type mystring=string\n\ncount()');
    expect(info).toEqual([
      { filename: good, start: 0, end: 21 },
      { filename: '', start: 22, end: 29 },
    ]);
    expect((await concatSource([], '')).text).toBe('*');
  });

  // The reference's lake/ztests/query-parse-error.yaml, with the offsets
  // its parser reports.
  test.each([
    [
      [],
      'from test \\ count()',
      10,
      'error parsing Zed at column 11:\nfrom test \\ count()\n      === ^ ===',
    ],
    [
      [],
      'from\ntest \\ count()',
      10,
      'error parsing Zed at line 2, column 6:\ntest \\ count()\n === ^ ===',
    ],
  ])('parse error in the argument (%#)', async (files, src, offset, want) => {
    const { text, info } = await concatSource(files, src);
    expect(parseErrorText(text, info, offset)).toBe(want);
  });

  test('parse errors name the -I file and line they are in', async () => {
    let c = await concatSource([good], 'from test \\ count()');
    expect(parseErrorText(c.text, c.info, 22 + 10)).toBe(
      'error parsing Zed at column 11:\nfrom test \\ count()\n      === ^ ===',
    );
    c = await concatSource([badSingle], '');
    expect(parseErrorText(c.text, c.info, 10)).toBe(
      `error parsing Zed in ${badSingle} at line 1, column 11:\nfrom test \\ count()\n      === ^ ===`,
    );
    c = await concatSource([good, badMulti], '');
    expect(parseErrorText(c.text, c.info, 22 + 10)).toBe(
      `error parsing Zed in ${badMulti} at line 2, column 6:\ntest \\ count()\n === ^ ===`,
    );
  });
});
