// The "lake" output format of the reference's lake commands: text for
// people, made from the lake's metadata records, chosen by their type
// names — pools ("name id key ts order desc"), branches ("pool@branch
// commit id (HEAD)"), data objects, partitions, and the commit log
// ("commit id (HEAD -> main)", author, date, message), with colors on a
// terminal. Values it does not know are written as one line of ZSON.

import { ByteSink, OutputBuffer, ValueWriter } from '../../formats/io';
import { formatValue } from '../../formats/zson';
import { goQuote } from '../../formats/zson/gotext';
import { Ksuid } from '../../lake/ksuid';
import { decodeInt, decodeIntBig, decodeString, decodeUint } from '../../zed/primitive';
import { recordFields } from '../../zed/record';
import { Kind, TypePrimitive, TypeArray, TypeNamed, TypeRecord, TypeSet } from '../../zed/types';
import { Value } from '../../zed/value';
import { readUvarint, uv } from '../../zed/zcode';

export interface LakeWriterOptions {
  /** The working branch (marked "HEAD") or commit ID (a detached HEAD). */
  head?: string;
  /** Write terminal color codes. */
  color?: boolean;
}

type Shape =
  | 'pool'
  | 'branchMeta'
  | 'object'
  | 'partition'
  | 'commit'
  | 'tip'
  | 'action'
  | 'fieldRule'
  | 'typeRule'
  | 'aggRule';

/**
 * The record types the format knows, by the names the reference's
 * unmarshaler binds (package-qualified or simple); "Object" alone means an
 * index object there, which this format does not show.
 */
const shapes: Record<string, Shape> = {
  'pools.Config': 'pool',
  Config: 'pool',
  'lake.BranchMeta': 'branchMeta',
  BranchMeta: 'branchMeta',
  'data.Object': 'object',
  'meta.Partition': 'partition',
  Partition: 'partition',
  'commits.Commit': 'commit',
  Commit: 'commit',
  'lake.BranchTip': 'tip',
  BranchTip: 'tip',
  'commits.Add': 'action',
  Add: 'action',
  'commits.AddIndex': 'action',
  AddIndex: 'action',
  'commits.Delete': 'action',
  Delete: 'action',
  'commits.DeleteIndex': 'action',
  DeleteIndex: 'action',
  'index.FieldRule': 'fieldRule',
  FieldRule: 'fieldRule',
  'index.TypeRule': 'typeRule',
  TypeRule: 'typeRule',
  'index.AggRule': 'aggRule',
  AggRule: 'aggRule',
};

/** Go's names for the primitive types the reference would unmarshal but not format. */
const goTypes: Record<string, string> = {
  uint8: 'uint8',
  uint16: 'uint16',
  uint32: 'uint32',
  uint64: 'uint64',
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  float16: 'float16.Float16',
  float32: 'float32',
  float64: 'float64',
  bool: 'bool',
  string: 'string',
  type: 'string',
  ip: 'netip.Addr',
  duration: 'time.Duration',
};

const Color = {
  Green: 2,
  GrayYellow: 3,
  Blue: 4,
  Turquoise: 31,
} as const;

const RESET = '\u001b[0m';
const BOLD = '\u001b[1m';

/** A stack of colors: ending one restores the one around it. */
class Colors {
  private stack: number[] = [];

  constructor(private enabled: boolean) {}

  private code(c: number): string {
    return `\u001b[38;5;${c}m`;
  }

  start(c: number): string {
    if (!this.enabled) return '';
    this.stack.push(c);
    return this.code(c);
  }

  end(): string {
    if (!this.enabled) return '';
    const top = this.stack.pop();
    if (this.stack.length === 0) return RESET;
    const next = this.stack[this.stack.length - 1];
    return top === next ? '' : this.code(next);
  }

  bold(s: string): string {
    return this.enabled ? BOLD + s + RESET : s;
  }
}

/** The fields of a record value by name (non-records and nulls: none). */
function fieldsByName(v: Value): Map<string, Value> {
  const m = new Map<string, Value>();
  const rt = v.type.under;
  if (!(rt instanceof TypeRecord) || v.isNull) return m;
  const vals = recordFields(v);
  rt.fields.forEach((f, i) => m.set(f.name, vals[i]));
  return m;
}

class ShapeError extends Error {}

function str(v: Value | undefined): string {
  if (!v || v.isNull) return '';
  if (v.type.under.kind !== Kind.Primitive || (v.type.under as TypePrimitive).name !== 'string') {
    throw new ShapeError();
  }
  return decodeString(v.buf, v.off, v.len);
}

function ksuid(v: Value | undefined): Ksuid {
  if (!v || v.isNull) return Ksuid.nil;
  if (v.len !== 20) throw new ShapeError();
  return Ksuid.fromBytes(v.buf.subarray(v.off, v.off + 20));
}

function int(v: Value | undefined): number {
  if (!v || v.isNull) return 0;
  const name = (v.type.under as TypePrimitive).name;
  if (name?.startsWith('uint')) return decodeUint(v.buf, v.off, v.len);
  if (name?.startsWith('int')) return decodeInt(v.buf, v.off, v.len);
  throw new ShapeError();
}

function strings(v: Value | undefined): string[] {
  if (!v || v.isNull) return [];
  const t = v.type.under;
  if (!(t instanceof TypeArray || t instanceof TypeSet)) throw new ShapeError();
  const elems: string[] = [];
  const arr = elementsOf(v);
  for (const e of arr) elems.push(str(e));
  return elems;
}

function elementsOf(v: Value): Value[] {
  const t = v.type.under as TypeArray | TypeSet;
  const out: Value[] = [];
  const buf = v.buf;
  let off = v.off;
  const end = v.off + v.len;
  while (off < end) {
    const tag = readUvarint(buf, off, end);
    if (tag < 0) throw new ShapeError();
    off = uv.end;
    const len = tag - 1;
    out.push(new Value(t.type, buf, off, len));
    off += len < 0 ? 0 : len;
  }
  return out;
}

/** The pool key as the reference prints a field.List: "a.b,c" ("this" for an empty path). */
function keysText(v: Value | undefined): string {
  if (!v || v.isNull) return '';
  return elementsOf(v)
    .map((p) => {
      const names = strings(p);
      return names.length === 0 ? 'this' : names.join('.');
    })
    .join(',');
}

/** A size as the reference abbreviates it (metric units: 1.50KB, 12MB). */
export function abbrevBytes(n: number): string {
  const units: [number, string][] = [
    [1e15, 'PB'],
    [1e9, 'GB'],
    [1e6, 'MB'],
  ];
  for (const [unit, suffix] of units) if (n >= unit) return scaled(n, unit, suffix);
  if (n >= 10 * 1000) return scaled(n, 1000, 'KB');
  return scaled(n, 1, 'B');
}

function scaled(n: number, unit: number, suffix: string): string {
  if (n % unit === 0) return `${n / unit}${suffix}`;
  return `${fixed2(n / unit)}${suffix}`;
}

/** x with two decimals, rounding exact ties to even as Go's %.2f does. */
function fixed2(x: number): string {
  const t = x * 100;
  const f = Math.floor(t);
  if (t - f === 0.5) return ((f % 2 === 0 ? f : f + 1) / 100).toFixed(2);
  return x.toFixed(2);
}

/** A time (ns since the epoch) in RFC 3339 form to the second, UTC. */
function dateText(ns: bigint): string {
  const sec = ns >= 0n ? ns / 1_000_000_000n : -((-ns + 999_999_999n) / 1_000_000_000n);
  return new Date(Number(sec) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Words into lines of at most lim characters where possible, minimising
 * the sum of squared shortfalls (too-long lines cost a large penalty), as
 * the reference's text wrapper does.
 */
export function wrap(paragraph: string, lim: number): string {
  const words = paragraph.trim().replace(/\n/g, ' ').split(' ');
  const n = words.length;
  const width = words.map((w) => [...w].length);
  const PENALTY = 1e5;
  const cost = new Array<number>(n).fill(Infinity);
  const brk = new Array<number>(n).fill(n);
  for (let i = n - 1; i >= 0; i--) {
    let len = width[i];
    for (let j = i + 1; j < n; j++) len += 1 + width[j];
    if (len <= lim || i === n - 1) {
      cost[i] = 0;
      brk[i] = n;
      continue;
    }
    let line = width[i];
    for (let j = i + 1; j < n; j++) {
      const d = lim - line;
      const c = d * d + cost[j] + (line > lim ? PENALTY : 0);
      if (c < cost[i]) {
        cost[i] = c;
        brk[i] = j;
      }
      line += 1 + width[j];
    }
  }
  const lines: string[] = [];
  for (let i = 0; i < n; i = brk[i]) lines.push(words.slice(i, brk[i]).join(' '));
  return lines.join('\n');
}

/** A commit message as the reference indents it: paragraphs wrapped at 80, four spaces in. */
export function formatMessage(body: string): string {
  const tab = '    ';
  const paras = body.split('\n\n').map((p) => wrap(p.trim(), 80).replace(/\n/g, '\n' + tab));
  const text = paras.join('\n\n' + tab).replace(/[ \t\n]+$/, '');
  return (tab + text + '\n\n').replace(/[ \n]+$/, '') + '\n\n';
}

export class LakeWriter implements ValueWriter {
  private out: OutputBuffer;
  private colors: Colors;
  private headID?: Ksuid;
  private headName = '';
  /** Branch names by the commit at their tip (from lake.BranchTip records). */
  private tips = new Map<string, string[]>();
  /** The name of the last index rule written (rules are listed under their names). */
  private ruleName: string | null = null;

  constructor(sink: ByteSink, opts: LakeWriterOptions = {}) {
    this.out = new OutputBuffer(sink);
    this.colors = new Colors(Boolean(opts.color));
    const head = opts.head ?? '';
    const id = Ksuid.parse(head);
    if (id) this.headID = id;
    else this.headName = head;
    // The reference compares with a zero ID when the head is a name.
    this.headID ??= Ksuid.nil;
  }

  async write(vals: Value[]): Promise<void> {
    for (const v of vals) {
      this.out.utf8(this.format(v));
      if (this.out.full) await this.out.flush();
    }
  }

  async close(): Promise<void> {
    await this.out.end();
  }

  private format(v: Value): string {
    const t = v.type;
    if (t instanceof TypeNamed) {
      const name = t.name.slice(t.name.lastIndexOf('/') + 1);
      const shape = shapes[name];
      if (shape && t.under instanceof TypeRecord && !v.isNull) {
        try {
          return this.shaped(shape, v);
        } catch (e) {
          if (!(e instanceof ShapeError)) throw e;
        }
      }
    } else {
      const go = this.goType(v);
      if (go !== undefined) return `lake format: unknown type: ${go}\n`;
    }
    return formatValue(v, 0) + '\n';
  }

  /** The Go type the reference would unmarshal an unnamed non-record value into. */
  private goType(v: Value): string | undefined {
    const t = v.type;
    if (t.kind === Kind.Primitive) {
      const name = (t as TypePrimitive).name;
      return name === 'null' ? '<nil>' : goTypes[name];
    }
    if ((t instanceof TypeArray || t instanceof TypeSet) && t.type.kind === Kind.Primitive) {
      const elem = goTypes[(t.type as TypePrimitive).name];
      return elem === undefined ? undefined : `[]${elem}`;
    }
    return undefined;
  }

  private shaped(shape: Shape, v: Value): string {
    const f = fieldsByName(v);
    switch (shape) {
      case 'pool':
        return this.pool(f) + '\n';
      case 'branchMeta':
        return this.branchMeta(f);
      case 'object':
        return this.object(f, '', 0);
      case 'partition': {
        let s = `min ${zson(f.get('min'))} max ${zson(f.get('max'))}\n`;
        const objs = f.get('objects');
        if (objs && !objs.isNull)
          for (const o of elementsOf(objs)) s += this.object(fieldsByName(o), '', 2);
        return s;
      }
      case 'commit':
        return this.commit(f);
      case 'tip': {
        const commit = ksuid(f.get('Commit')).toString();
        const names = this.tips.get(commit) ?? [];
        names.push(str(f.get('Name')));
        this.tips.set(commit, names);
        return '';
      }
      case 'action':
        return '';
      case 'fieldRule':
        return this.rule(f, `field ${keysText(f.get('fields'))}`);
      case 'typeRule':
        return this.rule(f, `type ${str(f.get('type'))}`);
      case 'aggRule':
        return this.rule(f, `agg ${goQuote(str(f.get('script')))}`);
    }
  }

  /** An index rule: its name when it differs from the last rule's, then "rule <id> <what>". */
  private rule(f: Map<string, Value>, what: string): string {
    const name = str(f.get('name'));
    const line = `    rule ${ksuid(f.get('id'))} ${what}\n`;
    if (name === this.ruleName) return line;
    this.ruleName = name;
    return `${name}\n${line}`;
  }

  private pool(f: Map<string, Value>): string {
    const layout = fieldsByName(f.get('layout') ?? Value.null());
    const order = str(layout.get('order')) === 'desc' ? 'desc' : 'asc';
    return `${str(f.get('name'))} ${ksuid(f.get('id'))} key ${keysText(layout.get('keys'))} order ${order}`;
  }

  private branchMeta(f: Map<string, Value>): string {
    const c = this.colors;
    const pool = fieldsByName(f.get('pool') ?? Value.null());
    const branch = fieldsByName(f.get('branch') ?? Value.null());
    const name = str(branch.get('name'));
    const commit = ksuid(branch.get('commit'));
    let s = `${str(pool.get('name'))}@${name} ${c.start(Color.GrayYellow)}commit ${commit}`;
    if (this.headID!.bytes.equals(commit.bytes) || this.headName === name) {
      s += ` (${c.start(Color.Turquoise)}${c.bold('HEAD')}${c.end()})`;
    }
    return s + c.end() + '\n';
  }

  private object(f: Map<string, Value>, prefix: string, indent: number): string {
    const tab = ' '.repeat(indent);
    let s = tab + (prefix ? prefix + ' ' : '');
    s += `${ksuid(f.get('id'))} ${abbrevBytes(int(f.get('size')))} bytes ${int(f.get('count'))} records`;
    s += `\n  ${tab} min ${zson(f.get('min'))} max ${zson(f.get('max'))}\n`;
    return s;
  }

  private commit(f: Map<string, Value>): string {
    const c = this.colors;
    const id = ksuid(f.get('id'));
    const date = f.get('date');
    if (date && !date.isNull && (date.type.under as TypePrimitive).name !== 'time')
      throw new ShapeError();
    const ns = date && !date.isNull ? decodeIntBig(date.buf, date.off, date.len) : 0n;
    const branches = this.tips.get(id.toString()) ?? [];
    let s = c.start(Color.GrayYellow) + `commit ${id}`;
    if (branches.length > 0) {
      s +=
        ' (' +
        branches
          .map((name) => {
            const head =
              name === this.headName ? c.start(Color.Turquoise) + c.bold('HEAD -> ') + c.end() : '';
            return head + c.start(Color.Green) + name + c.end();
          })
          .join(', ') +
        ')';
    } else if (id.bytes.equals(this.headID!.bytes)) {
      s += ` (${c.start(Color.Blue)}HEAD${c.end()})`;
    }
    s += c.end();
    s += `\nAuthor: ${str(f.get('author'))}\nDate:   ${dateText(ns)}\n\n`;
    const message = str(f.get('message'));
    if (message !== '') s += formatMessage(message);
    return s;
  }
}

function zson(v: Value | undefined): string {
  return v ? formatValue(v, 0) : 'null';
}
