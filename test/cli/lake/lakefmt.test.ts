// The "lake" text format over the lake's own metadata records: pools,
// branches (with HEAD), data objects, partitions, the commit log, and the
// fallbacks for other values.

import { abbrevBytes, formatMessage, LakeWriter, wrap } from '../../../src/cli/lake/lakefmt';
import { BufferSink } from '../../../src/formats/io';
import { parseValues } from '../../../src/formats/zson';
import { Ksuid } from '../../../src/lake/ksuid';
import { DataObject } from '../../../src/lake/object';
import { BranchConfig, PoolConfig } from '../../../src/lake/config';
import {
  addRecord,
  branchMetaRecord,
  branchTipRecord,
  commitRecord,
  metaTypes,
  objectRecord,
  poolRecord,
  RecordBuilder,
} from '../../../src/lake/records';
import { TypeContext } from '../../../src/zed/context';
import { TypeString } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';

const ctx = new TypeContext();
const mt = metaTypes(ctx);
const rb = new RecordBuilder();

const poolID = Ksuid.parse('2DkCxlpTOd4Sm6iUrExxwKxtDe2')!;
const c1 = Ksuid.parse('2DkCxvrrnE1n84A5OJbhOH0gDNJ')!;
const c2 = Ksuid.parse('2DkCy1Kb8QyZ2j6H1n1vHBGk1Rb')!;
const obj = Ksuid.parse('2DkCxuL9yXJHbyWqyP58SdQFOrq')!;

const pool: PoolConfig = {
  ts: 0n,
  name: 'logs',
  id: poolID,
  layout: { order: 'desc', keys: [['ts'], ['id', 'orig_h']] },
  seekStride: 65536,
  threshold: 524288000,
  vectors: true,
};

const branch = (name: string, commit: Ksuid): BranchConfig => ({ ts: 0n, name, commit });

async function render(vals: Value[], head?: string, color = false): Promise<string> {
  const sink = new BufferSink();
  const w = new LakeWriter(sink, { head, color });
  await w.write(vals);
  await w.close();
  return sink.text();
}

function zson(text: string): Value[] {
  return parseValues(ctx, text);
}

function commit(id: Ksuid, parent: Ksuid, message: string, author = 'testuser'): Value {
  const date = BigInt(Date.UTC(2023, 10, 22, 5, 56, 7, 123)) * 1_000_000n + 456n;
  const meta = Value.null(TypeString);
  return commitRecord(mt, rb, { id, parent, retries: 0, author, date, message, meta }, true);
}

describe('lake format', () => {
  test('pools: name, ID, keys and order', async () => {
    expect(await render([poolRecord(mt, rb, pool)])).toBe(
      `logs ${poolID} key ts,id.orig_h order desc\n`,
    );
    const asc = { ...pool, name: 'p2', layout: { order: 'asc' as const, keys: [[]] } };
    expect(await render([poolRecord(mt, rb, asc)])).toBe(`p2 ${poolID} key this order asc\n`);
  });

  test('branches: HEAD marks the working branch, or a branch at the head commit', async () => {
    const vals = [
      branchMetaRecord(mt, rb, pool, branch('main', c1)),
      branchMetaRecord(mt, rb, pool, branch('dev', c2)),
    ];
    expect(await render(vals, 'main')).toBe(
      `logs@main commit ${c1} (HEAD)\nlogs@dev commit ${c2}\n`,
    );
    expect(await render(vals, c2.toString())).toBe(
      `logs@main commit ${c1}\nlogs@dev commit ${c2} (HEAD)\n`,
    );
    // As in the reference, a branch with no commit matches the zero head ID.
    expect(await render([branchMetaRecord(mt, rb, pool, branch('main', Ksuid.nil))])).toBe(
      `logs@main commit ${Ksuid.nil} (HEAD)\n`,
    );
  });

  test('branches in color on a terminal', async () => {
    const text = await render([branchMetaRecord(mt, rb, pool, branch('main', c1))], 'main', true);
    expect(text).toBe(
      `logs@main \u001b[38;5;3mcommit ${c1} (\u001b[38;5;31m\u001b[1mHEAD\u001b[0m\u001b[38;5;3m)\u001b[0m\n`,
    );
  });

  test('data objects and their key range', async () => {
    const o = new DataObject(obj, zson('1')[0], zson('2')[0], 2, 18);
    expect(await render([objectRecord(mt, rb, o)])).toBe(
      `${obj} 18B bytes 2 records\n   min 1 max 2\n`,
    );
    const big = new DataObject(
      obj,
      zson('2020-04-21T22:40:30.06852324Z')[0],
      Value.null(),
      1000,
      33493,
    );
    expect(await render([objectRecord(mt, rb, big)])).toBe(
      `${obj} 33.49KB bytes 1000 records\n   min 2020-04-21T22:40:30.06852324Z max null\n`,
    );
  });

  test('the log: tips name the branches at each commit; messages are indented', async () => {
    const add = addRecord(mt, rb, c2, new DataObject(obj, zson('1')[0], zson('1')[0], 1, 14));
    const vals = [
      branchTipRecord(mt, rb, branch('main', c2)),
      branchTipRecord(mt, rb, branch('dev', c2)),
      commit(c2, c1, `loaded 1 data object\n\n  ${obj} 1 record in 14 data bytes\n`),
      add,
      commit(c1, Ksuid.nil, ''),
    ];
    expect(await render(vals, 'main')).toBe(
      `commit ${c2} (HEAD -> main, dev)\nAuthor: testuser\nDate:   2023-11-22T05:56:07Z\n\n` +
        `    loaded 1 data object\n\n    ${obj} 1 record in 14 data bytes\n\n` +
        `commit ${c1}\nAuthor: testuser\nDate:   2023-11-22T05:56:07Z\n\n`,
    );
    // A detached head (a commit ID) is marked on its commit.
    expect(await render([commit(c1, Ksuid.nil, 'x')], c1.toString())).toMatch(
      new RegExp(`^commit ${c1} \\(HEAD\\)\n`),
    );
  });

  test('other values: records as ZSON lines, primitives as the reference reports them', async () => {
    expect(await render(zson('{a:1,b:"x"} {x:1}(=Thing)'))).toBe('{a:1,b:"x"}\n{x:1}(=Thing)\n');
    expect(await render(zson('1(uint64) "s" [1,2] null'))).toBe(
      'lake format: unknown type: uint64\nlake format: unknown type: string\nlake format: unknown type: []int64\nlake format: unknown type: <nil>\n',
    );
    // A known name on the wrong shape falls back to ZSON too.
    expect(await render(zson('{name:1}(=pools.Config)'))).toBe('{name:1}(=pools.Config)\n');
  });
});

describe('text helpers', () => {
  test('sizes are abbreviated in metric units', () => {
    expect(abbrevBytes(0)).toBe('0B');
    expect(abbrevBytes(9999)).toBe('9999B');
    expect(abbrevBytes(10000)).toBe('10KB');
    expect(abbrevBytes(33493)).toBe('33.49KB');
    expect(abbrevBytes(10125)).toBe('10.12KB'); // an exact tie rounds to even, as Go does
    expect(abbrevBytes(524288000)).toBe('524.29MB');
    expect(abbrevBytes(2e9)).toBe('2GB');
  });

  test('wrapping minimises raggedness within the width', () => {
    expect(wrap('a b c', 80)).toBe('a b c');
    const words = 'aaaa bb cccc dd eeee'.split(' ');
    expect(wrap(words.join(' '), 9)).toBe('aaaa bb\ncccc dd\neeee');
    // One too-long line costs the same penalty wherever it breaks, so the
    // shortfalls decide: "x" joins the long word rather than stand alone.
    expect(wrap('x ' + 'y'.repeat(20) + ' z', 10)).toBe('x ' + 'y'.repeat(20) + '\nz');
    for (const line of wrap('lorem ipsum dolor sit amet '.repeat(20), 30).split('\n')) {
      expect(line.length).toBeLessThanOrEqual(30);
    }
  });

  test('commit messages: paragraphs indented by four spaces, then a blank line', () => {
    expect(formatMessage('hello')).toBe('    hello\n\n');
    expect(formatMessage('one\n\ntwo\n')).toBe('    one\n\n    two\n\n');
  });
});
