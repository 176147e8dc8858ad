// Fuzzing the CSV and TSV readers: mutated files, token soup and random
// bytes must give values or a FormatError, never another exception or a
// hang.

import { fuzzInputs, fuzzReader } from '../zeek/support';

const seeds = [
  'a,b,c\n1,2,3\nhello,world,4\n',
  'field1,field2,field"3"\nvalue1,"value"2,value"3" my friend\n',
  '"Letter", "Frequency"\n  "A",  24373121\r\n"B",   4762938\n',
  'x,y\n"multi\nline",""""\n,\n',
].map((s) => Buffer.from(s));
const tsvSeeds = seeds.map((b) => Buffer.from(b.toString().replace(/,/g, '\t')));

const tokens = [
  '"',
  '""',
  ',',
  '\t',
  '\n',
  '\r',
  '\r\n',
  ' ',
  '1',
  '-1.5e3',
  'true',
  'NaN',
  'x',
  'é',
  '\xff',
];

test('csv reader fuzz', () => fuzzReader('csv', fuzzInputs(seeds, tokens)));
test('tsv reader fuzz', () => fuzzReader('tsv', fuzzInputs(tsvSeeds, tokens)));
