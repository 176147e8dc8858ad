// Fuzzing the Zeek reader: mutated sample logs, token soup and random
// bytes must give values or a FormatError with the line, never another
// exception or a hang.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fuzzInputs, fuzzReader } from './support';

const samples = join(__dirname, '../../../../shared/sample-data/zeek-default');
// Short prefixes of each log keep the runs fast.
const seeds = readdirSync(samples)
  .sort()
  .map((f) => gunzipSync(readFileSync(join(samples, f))).subarray(0, 2048));

const tokens = [
  '\t',
  '\n',
  '\r\n',
  ',',
  '-',
  '(empty)',
  '\\x',
  '\\x09',
  '\\',
  '#separator \\x09\n',
  '#fields\t',
  '#types\t',
  '#path\t',
  '#empty_field\t(empty)\n',
  '#unset_field\t-\n',
  'set[string]',
  'vector[int]',
  'port',
  'enum',
  'time',
  'interval',
  'addr',
  'subnet',
  'count',
  'double',
  'bool',
  'a.b',
  '.',
  '1425565514.419939',
  '1e400',
  '10.0.0.1',
  '::1',
  '10.0.0.0/8',
  'T',
  '\xff',
  'é',
];

test('zeek reader fuzz', () => fuzzReader('zeek', fuzzInputs(seeds, tokens), { lines: true }));
