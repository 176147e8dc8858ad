// TSV (the reference's v1.12 addition): CSV rules with a tab delimiter.

import { detectTsv, tsvFormat } from '../../../src/formats/tsv';
import { FormatError, sourceFromBuffer } from '../../../src/formats/io';
import { TypeContext } from '../../../src/zed/context';
import { readWith, writeWith, zson } from '../zeek/support';

describe('tsv', () => {
  it('keeps leading white space, since the delimiter is white space', async () => {
    const vals = await readWith('tsv', 'a\tb\n  x\t 1\n');
    expect(await zson(vals)).toBe('{a:"  x",b:" 1"}\n');
  });

  it('ignores the csvDelim option', async () => {
    const vals = await readWith('tsv', 'a\tb\n1\t2\n', new TypeContext(), { csvDelim: ';' });
    expect(await zson(vals)).toBe('{a:1.,b:2.}\n');
  });

  it('quotes fields holding tabs, and reads them back', async () => {
    const out = await writeWith('tsv', await readWith('zson', '{a:"x\\ty",b:"p,q"}'));
    expect(out).toBe('a\tb\n"x\ty"\tp,q\n');
    expect(await zson(await readWith('tsv', out))).toBe('{a:"x\\ty",b:"p,q"}\n');
  });

  it('names itself in errors', async () => {
    await expect(readWith('tsv', 'a\tb\n1\n')).rejects.toEqual(
      new FormatError('tsv', 'record on line 2: wrong number of fields'),
    );
  });

  it('is detected as the reference v1.12 detects it', async () => {
    expect(await detectTsv(sourceFromBuffer(Buffer.from('a\tb\n1\t2\n')))).toBeNull();
    expect(await detectTsv(sourceFromBuffer(Buffer.from('a,b\n1,2\n')))).toBe(
      "tsv: line 1: delimiter '\\t' not found",
    );
  });

  it('is registered under its name and media type', () => {
    expect(tsvFormat.name).toBe('tsv');
    expect(tsvFormat.mimeTypes).toEqual(['text/tab-separated-values']);
  });
});
