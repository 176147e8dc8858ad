// The Zeek reader's rules beyond the ported ztests: header directives,
// line handling, escapes, every type's text, and the error texts.

import { FormatError } from '../../../src/formats/io';
import { detectZeek } from '../../../src/formats/zeek';
import { sourceFromBuffer } from '../../../src/formats/io';
import { TypeContext } from '../../../src/zed/context';
import { readWith, zson } from './support';

const header = (fields: string, types: string, path = 'p') =>
  '#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n' +
  (path ? `#path\t${path}\n` : '') +
  `#fields\t${fields}\n#types\t${types}\n`;

/** The log read as one-line ZSON. */
async function read(text: string | Buffer): Promise<string> {
  return zson(await readWith('zeek', text));
}

/** The FormatError reading the log gives. */
async function failure(text: string): Promise<FormatError> {
  try {
    await readWith('zeek', text);
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).format).toBe('zeek');
    return e as FormatError;
  }
  throw new Error('no error');
}

describe('zeek reader: types', () => {
  it('maps every Zeek type as the reference does', async () => {
    const log =
      header(
        'a\tb\tc\td\te\ti\tn\tp\ts\tsub\tt\tse\tvc',
        'addr\tbool\tcount\tdouble\tenum\tint\tinterval\tport\tstring\tsubnet\ttime\tset[count]\tvector[addr]',
      ) +
      '::1\tT\t18446744073709551615\t-1.5e3\tudp\t-9223372036854775808\t-0.000000001\t65535\tx\t10.1.2.3/8\t0.5\t3,1,2,1\t1.2.3.4,-\n';
    expect(await read(log)).toBe(
      '{_path:"p",a:::1,b:true,c:18446744073709551615(uint64),d:-1500.,e:"udp"(=zenum),' +
        'i:-9223372036854775808,n:-1ns,p:65535(port=uint16),s:"x",sub:10.0.0.0/8,' +
        't:1970-01-01T00:00:00.5Z,se:|[1(uint64),2(uint64),3(uint64)]|,vc:[1.2.3.4,null(ip)]}\n',
    );
  });

  it('reads every Go boolean spelling', async () => {
    const vals = ['T', 'F', 'true', 'false', 'TRUE', 'False', '1', '0', 't', 'f'];
    const log = header('b', 'bool', '') + vals.join('\n') + '\n';
    expect(await read(log)).toBe(
      [true, false, true, false, true, false, true, false, true, false]
        .map((b) => `{b:${b}}\n`)
        .join(''),
    );
  });

  it('reads floats as Go does', async () => {
    const log =
      header('d', 'double', '') +
      ['1', '.5', '5.', '-0', 'NaN', '+Inf', '-inf', '1e-400', '0x1p-2', '1_0'].join('\n') +
      '\n';
    expect(await read(log)).toBe(
      ['1.', '0.5', '5.', '0.', 'NaN', '+Inf', '-Inf', '0.', '0.25', '10.']
        .map((d) => `{d:${d}}\n`)
        .join(''),
    );
  });

  it('reads times with the reference quirks', async () => {
    const cases: [string, string][] = [
      ['1425565514.419939', '2015-03-05T14:25:14.419939Z'],
      ['1425565514.4199391', '2015-03-05T14:25:14.4199391Z'],
      ['-1.5', '1969-12-31T23:59:58.5Z'],
      ['10', '1970-01-01T00:00:10Z'],
      ['.', '1970-01-01T00:00:00Z'],
      // More than nine fractional digits: the reference's scale reaches 0.
      ['1.0000000001', '1970-01-01T00:00:00Z'],
      // Not a plain decimal: parsed as a float, seconds rounded.
      ['1e3', '1970-01-01T00:16:40Z'],
      ['+2.5', '1970-01-01T00:00:02.5Z'],
      // int64 nanoseconds wrap around: 2^63 + 145224192 ns.
      ['9223372037', '1677-09-21T00:12:43.290448384Z'],
    ];
    const log = header('t', 'time', '') + cases.map((c) => c[0]).join('\n') + '\n';
    expect(await read(log)).toBe(cases.map((c) => `{t:${c[1]}}\n`).join(''));
  });

  it('sorts and deduplicates sets by their encoded bytes', async () => {
    const log = header('s', 'set[string]', '') + 'bb,a,-,,a,c\n';
    expect(await read(log)).toBe('{s:|[null(string),"","a","c","bb"]|}\n');
  });

  it('keeps "(empty)" as a string inside a longer set and in string fields', async () => {
    const log = header('s\tv', 'string\tvector[string]', '') + '(empty)\t(empty),x\n';
    expect(await read(log)).toBe('{s:"(empty)",v:["(empty)","x"]}\n');
  });
});

describe('zeek reader: strings', () => {
  it('decodes Zeek escapes', async () => {
    const log =
      header('s', 'string', '') +
      ['a\\x41b', 'back\\\\slash', 'tab\\tq\\"', 'odd\\q', 'end\\', '\\xg1', '\\xgg'].join('\n') +
      '\n';
    expect(await read(log)).toBe(
      [
        '"aAb"',
        '"back\\\\slash"',
        '"tab\\tq\\""',
        '"odd\\\\q"',
        '"end\\\\"',
        // One valid hex digit is enough for the reference (0xf1 is then
        // invalid UTF-8 and escaped again).
        '"\\\\xf1"',
        '"\\\\xgg"',
      ]
        .map((s) => `{s:${s}}\n`)
        .join(''),
    );
  });

  it('normalises to NFC', async () => {
    const log = header('s', 'string', '') + 'e\u0301\n';
    expect(await read(log)).toBe('{s:"\u00e9"}\n');
  });

  it('escapes invalid UTF-8 bytes from raw input too, keeping valid runes', async () => {
    const log = Buffer.concat([
      Buffer.from(header('s', 'string', '')),
      Buffer.from([0x61, 0xff, 0xc3, 0xa9, 0x0a]),
    ]);
    expect(await read(log)).toBe('{s:"a\\\\xff\u00e9"}\n');
  });
});

describe('zeek reader: lines and headers', () => {
  it('skips blank lines, takes CRLF, and reads a final line without newline', async () => {
    const log = header('n', 'int', '').replace(/\n/g, '\r\n') + '\r\n1\r\n\n22';
    expect(await read(log)).toBe('{n:1}\n{n:22}\n');
  });

  it('skips a final one-byte line, as the reference scanner does', async () => {
    expect(await read(header('n', 'int', '') + '1\n2')).toBe('{n:1}\n');
  });

  it('ignores unknown directives and #open/#close', async () => {
    const log = '#whatever\tx\n' + header('n', 'int', '') + '#open\t2020\n1\n#close\t2020\n';
    expect(await read(log)).toBe('{_path:"p",n:1}\n'.replace('_path:"p",', ''));
  });

  it('splits directives on #separator, which starts as a space', async () => {
    // With a space separator, tab-separated directives are not recognised.
    const log = '#fields a\n#types int\n5\n';
    expect(await read(log)).toBe('{a:5}\n');
    const e = await failure('#fields\ta\n#types\tint\n5\n');
    expect(e.message).toBe('line 3: bad types/fields definition in zeek header');
  });

  it('keeps types when #fields is repeated with the same count', async () => {
    const log = header('a', 'int', '') + '1\n#fields\tb\n2\n';
    expect(await read(log)).toBe('{a:1}\n{b:2}\n');
  });

  it('makes nested records from dotted names, grouping non-adjacent ones', async () => {
    const log = header('x.a\ty\tx.b\tz.w.v', 'int\tint\tint\tint', '') + '1\t2\t3\t4\n';
    expect(await read(log)).toBe('{x:{a:1,b:3},y:2,z:{w:{v:4}}}\n');
  });

  it('adds _path after a #path change without new #fields', async () => {
    const log = header('n', 'int', 'a') + '1\n#path\tb\n2\n';
    expect(await read(log)).toBe('{_path:"a",n:1}\n{_path:"b",n:2}\n');
  });
});

describe('zeek reader: errors', () => {
  const cases: [string, string, string][] = [
    ['data before a header', '{"a":1}\n', 'line 1: bad types/fields definition in zeek header'],
    ['too few values', header('a\tb', 'int\tint') + '1\n', 'line 8: too few values'],
    ['too many values', header('a', 'int') + '1\t2\n', 'line 8: too many values'],
    [
      'a bad int',
      header('a', 'int') + 'x\n',
      'line 8: strconv.ParseInt: parsing "x": invalid syntax',
    ],
    [
      'an int out of range',
      header('a', 'int') + '9223372036854775808\n',
      'line 8: strconv.ParseInt: parsing "9223372036854775808": value out of range',
    ],
    [
      'a bad port',
      header('a', 'port') + '65536\n',
      'line 8: strconv.ParseUint: parsing "65536": value out of range',
    ],
    [
      'a negative count',
      header('a', 'count') + '-1\n',
      'line 8: strconv.ParseUint: parsing "-1": invalid syntax',
    ],
    [
      'a bad bool',
      header('a', 'bool') + 'yes\n',
      'line 8: strconv.ParseBool: parsing "yes": invalid syntax',
    ],
    [
      'a bad double',
      header('a', 'double') + '1.2.3\n',
      'line 8: strconv.ParseFloat: parsing "1.2.3": invalid syntax',
    ],
    ['a bad time', header('a', 'time') + 'noon\n', 'line 8: invalid time format: "noon"'],
    [
      'a bad host',
      header('a', 'addr') + 'example.com\n',
      'line 8: ParseAddr("example.com"): unexpected character (at "example.com")',
    ],
    [
      'a bad addr',
      header('a', 'addr') + '1.2.3\n',
      'line 8: ParseAddr("1.2.3"): IPv4 address too short',
    ],
    [
      'a bad subnet',
      header('a', 'subnet') + '1.2.3.4\n',
      `line 8: netip.ParsePrefix("1.2.3.4"): no '/'`,
    ],
    [
      'a subnet too long',
      header('a', 'subnet') + '1.2.3.4/33\n',
      'line 8: netip.ParsePrefix("1.2.3.4/33"): prefix length out of range',
    ],
    ['an unknown type', header('a', 'table[string]'), 'line 7: unknown type: table[string]'],
    [
      'a non-standard #empty_field',
      '#separator \\x09\n#empty_field\tnone\n',
      "line 2: encountered bad header field #empty_field (non-standard value 'none') parsing zeek log",
    ],
    [
      'a non-standard #unset_field',
      '#separator \\x09\n#unset_field\tnil\n',
      "line 2: encountered bad header field #unset_field (non-standard value 'nil') parsing zeek log",
    ],
    [
      'a #path with two values',
      '#separator \\x09\n#path\ta\tb\n',
      'line 2: encountered bad header field path parsing zeek log',
    ],
    ['duplicate fields', header('a\ta', 'int\tint') + '1\t2\n', 'line 8: duplicate field: "a"'],
  ];
  it.each(cases)('%s', async (_name, log, message) => {
    const e = await failure(log);
    expect(e.message).toBe(message);
    expect(e.line).toBe(Number(/^line (\d+)/.exec(message)![1]));
  });

  it('delivers the values before a bad line, then fails', async () => {
    const r = (await import('../../../src/formats/zeek')).zeekFormat.newReader!(
      sourceFromBuffer(Buffer.from(header('a', 'int', '') + '1\n2\nx\n')),
      { ctx: new TypeContext() },
    );
    const first = await r.read();
    expect(await zson(first!)).toBe('{a:1}\n{a:2}\n');
    await expect(r.read()).rejects.toThrow('line 9: strconv.ParseInt: parsing "x": invalid syntax');
    await expect(r.read()).rejects.toThrow(FormatError);
  });
});

describe('zeek detection', () => {
  const src = (s: string) => sourceFromBuffer(Buffer.from(s));
  it('matches a log, a header alone, and empty input', async () => {
    expect(await detectZeek(src(header('a', 'int') + '1\n'))).toBeNull();
    expect(await detectZeek(src(header('a', 'int')))).toBeNull();
    expect(await detectZeek(src(''))).toBeNull();
  });
  it('gives the reference reason otherwise', async () => {
    expect(await detectZeek(src('{"a":1}\n'))).toBe(
      'zeek: line 1: bad types/fields definition in zeek header',
    );
  });
});

describe('zeek reader: limits', () => {
  it('refuses absurdly deep dotted names quickly', async () => {
    const name = 'a.'.repeat(200000) + 'b';
    const start = Date.now();
    const e = await failure(`#separator \\x09\n#fields\t${name}\n#types\tint\n1\n`);
    expect(e.message).toBe('line 4: zeek field names nested too deeply');
    expect(Date.now() - start).toBeLessThan(10000);
  });

  it('skips lines over 50 MiB, as the reference does', async () => {
    const big = 'x'.repeat(50 * 1024 * 1024);
    const log = `#separator \\x09\n#fields\ts\n#types\tstring\n${big}\nok\n`;
    for (const chunk of [undefined, 1024 * 1024]) {
      const vals = await readWith('zeek', log, new TypeContext(), { chunk });
      // (Compare sizes, not text: a failure must not print 50 MiB.)
      expect(vals.map((v) => v.len)).toEqual([3]); // {s:"ok"}: a tag and two bytes
    }
  });
});
