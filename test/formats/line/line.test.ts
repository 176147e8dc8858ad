// The line reader: one string per line, as Go's bufio.Scanner splits them.

import { FormatError } from '../../../src/formats/io';
import { readWith, zson } from '../zeek/support';

describe('line reader', () => {
  it('keeps empty lines, drops CR before LF, and reads a final line without newline', async () => {
    const vals = await readWith('line', 'a\r\n\nb\rc\nlast\r');
    expect(await zson(vals)).toBe('"a"\n""\n"b\\rc"\n"last"\n');
  });

  it('gives nothing for empty input, and no value for a final newline', async () => {
    expect(await readWith('line', '')).toEqual([]);
    expect(await zson(await readWith('line', 'x\n'))).toBe('"x"\n');
  });

  it('keeps bytes as they are, valid UTF-8 or not', async () => {
    const vals = await readWith('line', Buffer.from([0xff, 0x41, 0x0a]));
    expect([...vals[0].bytes()!]).toEqual([0xff, 0x41]);
  });

  it('reads lines across chunk boundaries', async () => {
    const text = Array.from({ length: 100 }, (_, i) => 'line ' + i).join('\n');
    const vals = await readWith('line', text, undefined, { chunk: 7 });
    expect(vals.map((v) => v.bytes()!.toString())).toEqual(text.split('\n'));
  });

  it('fails on a line of 64 KiB or more, as bufio.Scanner does', async () => {
    const ok = 'x'.repeat(65535);
    expect((await readWith('line', ok + '\n', undefined, { chunk: 4096 }))[0].len).toBe(65535);
    const long = 'a\n' + 'x'.repeat(65536) + '\nb\n';
    await expect(readWith('line', long, undefined, { chunk: 4096 })).rejects.toEqual(
      new FormatError('line', 'bufio.Scanner: token too long'),
    );
    await readWith('line', long).catch((e: FormatError) => expect(e.line).toBe(2));
  });
});
