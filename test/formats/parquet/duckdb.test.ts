// Interop with a real peer: DuckDB writes Parquet that zlake must read
// exactly, and reads zlake's Parquet (and, through arrow-rs in
// parquet-wasm, zlake's Arrow IPC streams) back as the same rows.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { Table as WasmTable, writeParquet } from 'parquet-wasm';
import { TypeContext } from '../../../src/zed/context';
import { formatType } from '../../../src/zed/typestring';
import { Value } from '../../../src/zed/value';
import { BufferSink, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { newParquetReader } from '../../../src/formats/parquet/reader';
import { ParquetWriter } from '../../../src/formats/parquet/writer';
import { ArrowStreamWriter } from '../../../src/formats/arrow/writer';
import { Canon, duckCanon, valueCanon } from './canon';
import { nativeRows } from './native';

const ROWS = 3000;
// Every kind the brief names: nested structs, lists, int64 beyond 2^53,
// microsecond timestamps, decimals; plus nulls, maps and lists of structs.
const SELECT = `select
    i::bigint as id,
    (9007199254740993 + i::bigint * 1000003) as big,
    -(9007199254740993 + i::bigint * 7) as neg,
    'name-' || i as name,
    make_timestamp(1704067200000001 + i::bigint * 1234567) as ts,
    (i * 3.14159 - 1000)::decimal(18,5) as price,
    (i::hugeint * 12345678901234567890123)::decimal(38,0) as huge,
    {'x': i % 100, 'y': 'y' || (i % 7), 'z': {'deep': (i * 2.5)::double, 'flag': i % 2 = 0}} as s,
    [i, i + 1, i + 2] as l,
    [{'k': i, 'v': 'v' || i}, {'k': -i, 'v': null}] as ls,
    map(['a', 'b'], [i, i * 2]) as m,
    case when i % 10 = 0 then null else i % 1000 end as maybe,
    case when i % 13 = 0 then null else {'p': i} end as maybe_s,
    (i % 200 - 100)::tinyint as tiny,
    (i * 7)::uinteger as u32,
    from_hex(printf('%04x', i)) as blob,
    i / 7.0 as dbl
  from range(${ROWS}) t(i)`;

let db: DuckDBInstance;
let conn: DuckDBConnection;
let dir: string;

beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zlake-duck-'));
});

afterAll(() => {
  conn.closeSync();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function duckRows(sql: string): Promise<Canon[]> {
  const r = await conn.runAndReadAll(sql);
  return r
    .getRowObjects()
    .map((row) => duckCanon({ constructor: { name: 'DuckDBStructValue' }, entries: row }));
}

function parquetFile(name: string): string {
  return path.join(dir, name).replace(/'/g, "''");
}

async function zlakeRead(bytes: Buffer): Promise<Value[]> {
  return readAll(newParquetReader(sourceFromBuffer(bytes), { ctx: new TypeContext() }.ctx));
}

async function writeWith(
  make: (sink: BufferSink) => { write(v: Value[]): Promise<void>; close(): Promise<void> },
  vals: Value[],
) {
  const sink = new BufferSink();
  const w = make(sink);
  await w.write(vals);
  await w.close();
  return sink.bytes();
}

describe('DuckDB interop', () => {
  let duckFile: string;
  let expected: Canon[];
  let zvals: Value[];

  beforeAll(async () => {
    duckFile = parquetFile('duck.parquet');
    await conn.run(`copy (${SELECT} order by id) to '${duckFile}' (format parquet)`);
    expected = await duckRows(`select * from read_parquet('${duckFile}')`);
    zvals = await zlakeRead(fs.readFileSync(duckFile));
  });

  test('zlake reads Parquet written by DuckDB with the reference type mapping', () => {
    expect(zvals).toHaveLength(ROWS);
    expect(formatType(zvals[0].type)).toBe(
      '{id:int64,big:int64,neg:int64,name:string,ts:arrow_timestamp_us=time,' +
        'price:arrow_decimal128={high:int64,low:uint64},huge:arrow_decimal128,' +
        's:{x:int64,y:string,z:{deep:float64,flag:bool}},l:[int64],ls:[{k:int64,v:string}],' +
        'm:|{string:int64}|,maybe:int64,maybe_s:{p:int64},tiny:int8,u32:uint32,blob:bytes,dbl:float64}',
    );
  });

  test('zlake reads every DuckDB value exactly (int64 past 2^53, µs times, decimals, nesting, nulls)', () => {
    const got = zvals.map(valueCanon);
    expect(got).toEqual(expected);
    // Spot checks a reader could get subtly wrong.
    const r1 = got[1] as Record<string, Canon>;
    expect(r1.big).toBe(9007199254740993n + 1000003n);
    expect(r1.ts).toBe(1704067200000001n + 1234567n);
    expect(r1.price).toBe(-99685841n); // 1 * 3.14159 - 1000 = -996.85841 at scale 5
    expect((got[0] as Record<string, Canon>).maybe).toBeNull();
  });

  test('DuckDB reads Parquet written by zlake as the same rows', async () => {
    const bytes = await writeWith((s) => new ParquetWriter(s, () => ''), zvals);
    const file = parquetFile('zlake.parquet');
    fs.writeFileSync(file, bytes);
    expect(await duckRows(`select * from read_parquet('${file}')`)).toEqual(expected);
  });

  test('DuckDB reads Arrow IPC written by zlake (via arrow-rs) as the same rows', async () => {
    const bytes = await writeWith((s) => new ArrowStreamWriter(s, () => ''), zvals);
    // DuckDB's own Arrow IPC reader is an extension that cannot be
    // installed offline; arrow-rs (in parquet-wasm) parses the stream.
    const file = parquetFile('zlake-arrow.parquet');
    fs.writeFileSync(file, writeParquet(WasmTable.fromIPCStream(bytes)));
    expect(await duckRows(`select * from read_parquet('${file}')`)).toEqual(expected);
  });

  test('DuckDB sees Zed-native types as the reference maps them', async () => {
    const ctx = new TypeContext();
    const { vals, expected: want } = nativeRows(ctx);
    const bytes = await writeWith((s) => new ParquetWriter(s, () => ''), vals);
    const file = parquetFile('native.parquet');
    fs.writeFileSync(file, bytes);
    const r = await conn.runAndReadAll(`select * from read_parquet('${file}')`);
    const types = r.columnNames().map((n, i) => `${n}:${r.columnType(i).toString()}`);
    expect(types).toEqual([
      'u8:UTINYINT',
      'i64:BIGINT',
      't:TIMESTAMP WITH TIME ZONE',
      's:VARCHAR',
      'ip:VARCHAR',
      'rec:STRUCT("a" BIGINT, "b" VARCHAR[])',
    ]);
    expect(await duckRows(`select * from read_parquet('${file}')`)).toEqual(want);
  });
});
