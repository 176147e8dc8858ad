// The sample logs (written by the reference): each Zeek log read and
// written as pretty ZSON must equal the reference's ZSON byte for byte,
// and Zeek → ZSON → Zeek → ZSON must reproduce that ZSON.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { TypeContext } from '../../../src/zed/context';
import { readWith, writeWith, zson } from './support';

const samples = join(__dirname, '../../../../shared/sample-data');
const logs = readdirSync(join(samples, 'zeek-default'))
  .filter((f) => f.endsWith('.log.gz'))
  .map((f) => f.slice(0, -'.log.gz'.length))
  .sort();

const gunzip = (dir: string, file: string) => gunzipSync(readFileSync(join(samples, dir, file)));

test('the sample logs are all here', () => {
  expect(logs.length).toBe(14);
});

describe.each(logs)('%s', (log) => {
  const zeek = gunzip('zeek-default', `${log}.log.gz`);
  const want = gunzip('zson', `${log}.zson.gz`).toString('utf8');

  it('reads as the reference ZSON, byte for byte', async () => {
    const vals = await readWith('zeek', zeek, new TypeContext(), { chunk: 4096 });
    expect(await zson(vals, 4)).toBe(want);
  });

  it('survives Zeek → ZSON → Zeek → ZSON', async () => {
    const fromZson = await readWith('zson', want);
    const zeekAgain = await writeWith('zeek', fromZson);
    const vals = await readWith('zeek', zeekAgain);
    expect(await zson(vals, 4)).toBe(want);
  });

  it('writes back as the log, less #open/#close and set order', async () => {
    const vals = await readWith('zeek', zeek);
    const out = (await writeWith('zeek', vals)).split('\n');
    const orig = zeek
      .toString('utf8')
      .split('\n')
      .filter((l) => !l.startsWith('#open') && !l.startsWith('#close'));
    expect(out.length).toBe(orig.length);
    // Sets are written sorted, and a string "(empty)" is disguised as
    // "\x28empty)" so that it does not read back as an empty container.
    const canon = (l: string) =>
      l
        .split('\t')
        .map((f) => f.replace('\\x28empty)', '(empty)').split(',').sort().join(','))
        .join('\t');
    for (let i = 0; i < orig.length; i++) expect(canon(out[i])).toBe(canon(orig[i]));
  });
});
