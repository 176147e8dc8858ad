// The CSV writer: flattening, header, the reference's text of each type,
// Go csv.Writer quoting, and its errors.

import { CsvWriter } from '../../../src/formats/csv';
import { BufferSink, FormatError } from '../../../src/formats/io';
import { readWith, writeWith } from '../zeek/support';

async function csvOf(zsonText: string): Promise<string> {
  return writeWith('csv', await readWith('zson', zsonText));
}

async function failure(zsonText: string): Promise<string> {
  try {
    await csvOf(zsonText);
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).format).toBe('csv');
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('csv writer', () => {
  it('flattens nested records into dotted columns', async () => {
    expect(await csvOf('{a:1,b:{c:"x",d:{e:true}}} {a:2,b:null({c:string,d:{e:bool}})}')).toBe(
      'a,b.c,b.d.e\n1,x,true\n2,,\n',
    );
  });

  it('quotes as Go csv.Writer does', async () => {
    const out = await csvOf(
      String.raw`{s:"a,b"} {s:"say \"hi\""} {s:" lead"} {s:"trail "} {s:"\\."} {s:"line\nbreak"} {s:"cr\r"} {s:"\tx"} {s:"\u00a0nbsp"}`,
    );
    expect(out).toBe(
      's\n"a,b"\n"say ""hi"""\n" lead"\ntrail \n"\\."\n"line\nbreak"\n"cr\r"\n"\tx"\n"\u00a0nbsp"\n',
    );
  });

  it('quotes column names too', async () => {
    expect(await csvOf('{"a,b":1," c":2}')).toBe('"a,b"," c"\n1,2\n');
  });

  it('writes complex values as ZSON and looks through names and unions', async () => {
    const out = await csvOf(
      '{a:[1,2],b:|["x"]|,c:|{"k":1}|,d:1(=myint),e:"s"((int64,string)),f:<int64>,g:error("boom")}',
    );
    expect(out).toBe(
      'a,b,c,d,e,f,g\n"[1,2]","|[""x""]|","|{""k"":1}|",1,s,<int64>,"error(""boom"")"\n',
    );
  });

  it('accepts later records with the same column names and other types', async () => {
    expect(await csvOf('{a:0} {a:"foo"} {a:127.0.0.1}')).toBe('a\n0\nfoo\n127.0.0.1\n');
  });

  it('rejects records with other column names', async () => {
    expect(await failure('{a:1} {b:1}')).toBe(
      "CSV output requires uniform records but multiple types encountered (consider 'fuse')",
    );
  });

  it("can apply v1.8's stricter rule", async () => {
    const vals = await readWith('zson', '{a:0} {a:"foo"}');
    const w = new CsvWriter(new BufferSink(), {}, { sameNamesSuffice: false });
    await expect(w.write(vals)).rejects.toThrow('CSV output requires uniform records');
  });

  it('rejects non-records with their ZSON', async () => {
    expect(await failure('{a:1} [1,2]')).toBe('CSV output encountered non-record value: [1,2]');
  });
});
