// The benchmark's query data set: Zeek-DNS-like records, generated
// deterministically (the sample logs hold no dns.log), as NDJSON in the shape
// of Zeek's JSON logs with the conn id as a nested object, and the same
// records converted to ZNG by zlake's JSON reader.
//
// Every record has every field, arrays are never empty and floats are always
// written with a decimal point, so all records share one Zed type (which the
// Arrow and Parquet writers need) and DuckDB's read_json_auto infers one
// schema. `query` is the high-cardinality string key (about 300k distinct
// names: 40% of lookups go to 2,000 popular names, 60% spread over 400k).
// A sidecar JSON file records what the cases need to know about the data:
// the ts at the 50th and 51st percentiles (a 1% pool-key range) and a
// "needle" name that occurs in exactly ten records.

import {
  createReadStream,
  createWriteStream,
  existsSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { sinkToWritable, sourceFromReadable } from '../src/formats/io';
import { jsonFormat } from '../src/formats/json';
import { zngFormat } from '../src/formats/zng';
import { TypeContext } from '../src/zed/context';
import { ensureDataDir } from './lib';

export interface DnsData {
  records: number;
  ndjson: string;
  zng: string;
  /** ts of the record at N/2 and at N/2 + N/100: [lo, hi) selects 1%. */
  tsLo: string;
  tsHi: string;
  /** A query name present in exactly `needleCount` records. */
  needle: string;
  needleCount: number;
}

const WORDS = [
  'api',
  'cdn',
  'mail',
  'www',
  'login',
  'static',
  'img',
  'update',
  'telemetry',
  'auth',
  'files',
  'app',
  'edge',
  'media',
  'ws',
  'ntp',
];
const SLDS = [
  'example',
  'contoso',
  'fabrikam',
  'northwind',
  'adventure-works',
  'wideworld',
  'tailspin',
  'litware',
  'proseware',
  'fourthcoffee',
  'woodgrove',
  'lucerne',
];
const TLDS = ['com', 'net', 'org', 'io', 'co.uk', 'de'];
const QTYPES: [number, string, number][] = [
  [1, 'A', 0.6],
  [28, 'AAAA', 0.2],
  [12, 'PTR', 0.08],
  [15, 'MX', 0.03],
  [16, 'TXT', 0.03],
  [33, 'SRV', 0.03],
  [5, 'CNAME', 0.02],
  [2, 'NS', 0.01],
];
const RCODES: [number, string, number][] = [
  [0, 'NOERROR', 0.85],
  [3, 'NXDOMAIN', 0.12],
  [2, 'SERVFAIL', 0.03],
];
const TTLS = ['30.0', '60.0', '300.0', '3600.0', '86400.0', '120.0'];
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const NEEDLE = 'needle-0042.bench.example';
const NEEDLES = 10;

/** mulberry32: a small deterministic PRNG, uniform in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(table: [number, string, number][], r: number, f: (e: [number, string]) => T): T {
  let acc = 0;
  for (const e of table) {
    acc += e[2];
    if (r < acc) return f([e[0], e[1]]);
  }
  const last = table[table.length - 1];
  return f([last[0], last[1]]);
}

function domain(j: number): string {
  return `${WORDS[j % WORDS.length]}${j}.${SLDS[(j * 7) % SLDS.length]}.${TLDS[(j >> 3) % TLDS.length]}`;
}

const pad2 = (n: number) => (n < 10 ? '0' : '') + n;

/** ISO 8601 with microseconds, as Zeek's JSON logs write ts. */
function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const d = new Date(ms);
  const frac = String(us % 1_000_000).padStart(6, '0');
  return (
    `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T` +
    `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${frac}Z`
  );
}

function ip(r: () => number): string {
  return `${1 + Math.floor(r() * 222)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${1 + Math.floor(r() * 254)}`;
}

async function writeNdjson(path: string, n: number): Promise<{ tsLo: string; tsHi: string }> {
  const r = prng(20180324);
  const out = createWriteStream(path);
  let us = Date.UTC(2018, 2, 24, 17, 0, 0) * 1000;
  let tsLo = '';
  let tsHi = '';
  const needleAt = new Set<number>();
  for (let k = 0; k < NEEDLES; k++) needleAt.add(Math.floor(((k + 0.5) * n) / NEEDLES));
  let chunk = '';
  for (let i = 0; i < n; i++) {
    us += 1 + Math.floor(r() * 4000);
    const ts = isoMicros(us);
    if (i === n >> 1) tsLo = ts;
    if (i === (n >> 1) + Math.floor(n / 100)) tsHi = ts;
    let uid = 'C';
    for (let k = 0; k < 17; k++) uid += B62[Math.floor(r() * 62)];
    const client = Math.floor(r() * 20000);
    const origH = `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`;
    const origP = 1024 + Math.floor(r() * 64511);
    const respH = `10.0.0.${1 + Math.floor(r() * 8)}`;
    const proto = r() < 0.97 ? 'udp' : 'tcp';
    const transId = Math.floor(r() * 65536);
    const rtt = (r() * 0.05).toFixed(6);
    const query = needleAt.has(i)
      ? NEEDLE
      : r() < 0.4
        ? domain(Math.floor(r() * 2000))
        : domain(2000 + Math.floor(r() * 400000));
    const [qtype, qtypeName] = pick(QTYPES, r(), (e) => e);
    const [rcode, rcodeName] = pick(RCODES, r(), (e) => e);
    const nAns = 1 + Math.floor(r() * 3);
    const answers: string[] = [];
    const ttls: string[] = [];
    for (let k = 0; k < nAns; k++) {
      answers.push(qtype === 5 && k === 0 ? `"edge${k}.${query}"` : `"${ip(r)}"`);
      ttls.push(TTLS[Math.floor(r() * TTLS.length)]);
    }
    chunk +=
      `{"_path":"dns","ts":"${ts}","uid":"${uid}","id":{"orig_h":"${origH}","orig_p":${origP},` +
      `"resp_h":"${respH}","resp_p":53},"proto":"${proto}","trans_id":${transId},"rtt":${rtt},` +
      `"query":"${query}","qclass":1,"qclass_name":"C_INTERNET","qtype":${qtype},` +
      `"qtype_name":"${qtypeName}","rcode":${rcode},"rcode_name":"${rcodeName}",` +
      `"AA":${r() < 0.1},"TC":false,"RD":true,"RA":true,"Z":0,` +
      `"answers":[${answers.join(',')}],"TTLs":[${ttls.join(',')}],"rejected":false}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((res) => out.once('drain', () => res()));
      chunk = '';
    }
  }
  out.write(chunk);
  await new Promise<void>((res) => out.end(() => res()));
  return { tsLo, tsHi };
}

async function ndjsonToZng(from: string, to: string): Promise<void> {
  const rd = jsonFormat.newReader!(sourceFromReadable(createReadStream(from)), {
    ctx: new TypeContext(),
  });
  const w = zngFormat.newWriter!(sinkToWritable(createWriteStream(to)), {});
  for (let b = await rd.read(); b; b = await rd.read()) await w.write(b);
  await w.close();
}

/** The data set of n records, generated on first use and kept in bench/data. */
export async function dnsData(n: number): Promise<DnsData> {
  const dir = ensureDataDir();
  const ndjson = join(dir, `dns-${n}.ndjson`);
  const zng = join(dir, `dns-${n}.zng`);
  const metaPath = join(dir, `dns-${n}.meta.json`);
  if (!existsSync(metaPath) || !existsSync(ndjson)) {
    const { tsLo, tsHi } = await writeNdjson(ndjson, n);
    const meta: DnsData = {
      records: n,
      ndjson,
      zng,
      tsLo,
      tsHi,
      needle: NEEDLE,
      needleCount: NEEDLES,
    };
    await ndjsonToZng(ndjson, zng);
    writeFileSync(metaPath, JSON.stringify(meta));
  }
  if (!existsSync(zng)) await ndjsonToZng(ndjson, zng);
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as DnsData;
  return { ...meta, ndjson, zng };
}
