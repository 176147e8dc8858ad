// The tabwriter against the layouts Go's text/tabwriter produces for the
// same input and settings (no flags; cases from Go's own test table),
// however the input is cut into writes.

import { TabWriter } from '../../../src/formats/table/tabwriter';

interface Case {
  name: string;
  minWidth: number;
  padding: number;
  padChar: string;
  input: string;
  want: string;
}

const cases: Case[] = [
  { name: 'empty', minWidth: 8, padding: 1, padChar: '.', input: '', want: '' },
  {
    name: 'empty escape',
    minWidth: 8,
    padding: 1,
    padChar: '.',
    input: '\xff\xff',
    want: '\xff\xff',
  },
  {
    name: 'escaped tab',
    minWidth: 8,
    padding: 1,
    padChar: '.',
    input: '\xff\t\xff',
    want: '\xff\t\xff',
  },
  {
    name: 'escaped tabs and newline',
    minWidth: 8,
    padding: 1,
    padChar: '.',
    input: '\xff"foo\t\n\tbar"\xff',
    want: '\xff"foo\t\n\tbar"\xff',
  },
  {
    name: 'unterminated escape',
    minWidth: 8,
    padding: 1,
    padChar: '.',
    input: 'abc\xff\tdef',
    want: 'abc\xff\tdef',
  },
  { name: 'empty lines', minWidth: 8, padding: 1, padChar: '.', input: '\n\n\n', want: '\n\n\n' },
  { name: 'no tabs', minWidth: 8, padding: 1, padChar: '.', input: 'a\nb\nc', want: 'a\nb\nc' },
  { name: 'lone tab', minWidth: 8, padding: 1, padChar: '.', input: '\t', want: '' },
  { name: 'two cells', minWidth: 8, padding: 1, padChar: '.', input: '*\t*', want: '*.......*' },
  {
    name: 'two cells, newline',
    minWidth: 8,
    padding: 1,
    padChar: '.',
    input: '*\t*\n',
    want: '*.......*\n',
  },
  {
    name: 'trailing tab',
    minWidth: 8,
    padding: 1,
    padChar: '.',
    input: '*\t*\t',
    want: '*.......*',
  },
  { name: 'tab newline', minWidth: 8, padding: 1, padChar: '.', input: '\t\n', want: '........\n' },
  { name: 'text only', minWidth: 8, padding: 1, padChar: '.', input: 'a) foo', want: 'a) foo' },
  {
    name: 'spaces',
    minWidth: 8,
    padding: 1,
    padChar: ' ',
    input: 'b) foo\tbar',
    want: 'b) foo  bar',
  },
  { name: 'c', minWidth: 8, padding: 1, padChar: '.', input: 'c) foo\tbar\t', want: 'c) foo..bar' },
  {
    name: 'd',
    minWidth: 8,
    padding: 1,
    padChar: '.',
    input: 'd) foo\tbar\n',
    want: 'd) foo..bar\n',
  },
  {
    name: 'e',
    minWidth: 8,
    padding: 1,
    padChar: '.',
    input: 'e) foo\tbar\t\n',
    want: 'e) foo..bar.....\n',
  },
  {
    name: 'one cell',
    minWidth: 8,
    padding: 1,
    padChar: '*',
    input: 'Hello, world!\n',
    want: 'Hello, world!\n',
  },
  {
    name: 'no padding',
    minWidth: 1,
    padding: 0,
    padChar: '.',
    input: '1\t2\t3\t4\n11\t222\t3333\t44444\n',
    want: '1.2..3...4\n11222333344444\n',
  },
  {
    name: 'form feed flushes',
    minWidth: 1,
    padding: 0,
    padChar: '.',
    input: '1\t2\t3\t4\f11\t222\t3333\t44444\n',
    want: '1234\n11222333344444\n',
  },
  {
    name: 'minimum width',
    minWidth: 5,
    padding: 0,
    padChar: '.',
    input: '1\t2\t3\t4\n',
    want: '1....2....3....4\n',
  },
  {
    name: 'minimum width, trailing tab',
    minWidth: 5,
    padding: 0,
    padChar: '.',
    input: '1\t2\t3\t4\t\n',
    want: '1....2....3....4....\n',
  },
  {
    name: 'widths in runes',
    minWidth: 8,
    padding: 1,
    padChar: '.',
    input: '本\tb\tc\naa\t本本本\tcccc\tddddd\naaa\tbbbb\n',
    want: '本.......b.......c\naa......本本本.....cccc....ddddd\naaa.....bbbb\n',
  },
  {
    name: 'column blocks',
    minWidth: 2,
    padding: 0,
    padChar: ' ',
    input: 'a\tb\tc\naa\tbbb\tcccc\naaa\tbbbb\n',
    want: 'a  b  c\naa bbbcccc\naaabbbb\n',
  },
  {
    name: 'underscores',
    minWidth: 8,
    padding: 1,
    padChar: '_',
    input: 'a\tb\tc\naa\tbbb\tcccc\naaa\tbbbb\n',
    want: 'a_______b_______c\naa______bbb_____cccc\naaa_____bbbb\n',
  },
  {
    name: 'blocks broken by short lines',
    minWidth: 4,
    padding: 1,
    padChar: '-',
    input:
      '4444\t日本語\t22\t1\t333\n999999999\t22\n7\t22\n\t\t\t88888888\n\n666666\t666666\t666666\t4444\n1\t1\t999999999\t0000000000\n',
    want: '4444------日本語-22--1---333\n999999999-22\n7---------22\n------------------88888888\n\n666666-666666-666666----4444\n1------1------999999999-0000000000\n',
  },
  {
    name: 'wide padding',
    minWidth: 4,
    padding: 3,
    padChar: '.',
    input:
      '4444\t333\t22\t1\t333\n999999999\t22\n7\t22\n\t\t\t88888888\n\n666666\t666666\t666666\t4444\n1\t1\t999999999\t0000000000\n',
    want: '4444........333...22...1...333\n999999999...22\n7...........22\n....................88888888\n\n666666...666666...666666......4444\n1........1........999999999...0000000000\n',
  },
  { name: 'empty cell', minWidth: 4, padding: 0, padChar: '.', input: 'a\t\tb', want: 'a.......b' },
];

/** Go strings are bytes: "\xff" in a case is the byte 0xff, the rest UTF-8. */
function bytes(s: string): Buffer {
  const parts = s.split('\xff').map((p) => Buffer.from(p, 'utf8'));
  const out: Buffer[] = [];
  parts.forEach((p, i) => {
    if (i > 0) out.push(Buffer.from([0xff]));
    out.push(p);
  });
  return Buffer.concat(out);
}

function run(c: Case, cuts: (n: number) => number[]): Buffer {
  const tw = new TabWriter(c.minWidth, c.padding, c.padChar.charCodeAt(0));
  const input = bytes(c.input);
  let at = 0;
  for (const n of cuts(input.length)) {
    tw.write(input, at, at + n);
    at += n;
  }
  tw.write(input, at, input.length);
  tw.flush();
  return tw.out.take();
}

describe('tabwriter layouts', () => {
  for (const c of cases) {
    it(c.name, () => {
      const want = bytes(c.want);
      expect(run(c, () => [])).toEqual(want);
      // One byte per write.
      expect(run(c, (n) => new Array<number>(n).fill(1))).toEqual(want);
      // Growing slices, as Go's test writes them.
      expect(
        run(c, (n) => {
          const out: number[] = [];
          for (let d = 0, i = 0; i < n; d++) {
            out.push(Math.min(d, n - i));
            i += Math.min(d, n - i);
          }
          return out;
        }),
      ).toEqual(want);
    });
  }

  it('keeps state across flushes and reuses its buffers', () => {
    const tw = new TabWriter();
    tw.write(Buffer.from('a\tbb\nccc\td\n'));
    tw.flush();
    tw.write(Buffer.from('x\ty\n'));
    tw.flush();
    expect(tw.out.take().toString()).toBe('a   bb\nccc d\nx y\n');
  });

  it('aligns many lines (buffers grow)', () => {
    const tw = new TabWriter();
    let input = '';
    let want = '';
    for (let i = 0; i < 3000; i++) {
      input += `${i}\t${'x'.repeat(i % 7)}\t!\n`;
    }
    for (let i = 0; i < 3000; i++) {
      want += `${String(i).padEnd(5)}${'x'.repeat(i % 7).padEnd(7)}!\n`;
    }
    tw.write(Buffer.from(input));
    tw.flush();
    expect(tw.out.take().toString()).toBe(want);
  });
});

describe('tabwriter widths', () => {
  it('counts runes of multi-byte text inside an escape, closed or left open', () => {
    const tw = new TabWriter(0, 1, 0x2e);
    tw.write(
      Buffer.concat([
        Buffer.from([0xff]),
        Buffer.from('日本'),
        Buffer.from([0xff]),
        Buffer.from('\tx\nab\ty\n'),
      ]),
    );
    tw.write(Buffer.from('日本', 'utf8'));
    tw.flush();
    // Closed: "日本" is 6 bytes but 2 runes wide; the column is 3 wide.
    expect(tw.out.take()).toEqual(
      Buffer.concat([
        Buffer.from([0xff]),
        Buffer.from('日本'),
        Buffer.from([0xff]),
        Buffer.from('.x\nab.y\n日本'),
      ]),
    );
    const open = new TabWriter(0, 1, 0x2e);
    open.write(Buffer.from('a\tb\n', 'latin1'));
    open.write(Buffer.concat([Buffer.from([0xff]), Buffer.from('日本\tz')]));
    open.flush();
    // The open escape swallows the tab; its one 0xff and two runes make a
    // width of 1 (Go subtracts two escape bytes).
    expect(open.out.take()).toEqual(
      Buffer.concat([Buffer.from('a.b\n'), Buffer.from([0xff]), Buffer.from('日本\tz')]),
    );
  });

  it('counts invalid UTF-8 bytes one rune each', () => {
    const tw = new TabWriter(0, 1, 0x2e);
    tw.write(Buffer.from([0xc3, 0x09, 0x78, 0x0a, 0x61, 0x62, 0x63, 0x09, 0x79, 0x0a]));
    tw.flush();
    expect(tw.out.take()).toEqual(
      Buffer.from([0xc3, 0x2e, 0x2e, 0x2e, 0x78, 0x0a, 0x61, 0x62, 0x63, 0x2e, 0x79, 0x0a]),
    );
  });
});
