// The Zeek TSV log writer.
//
// Records are flattened to dotted columns. A header is written before the
// first record and again whenever the flat shape or the _path changes; as
// in the reference, the #separator/#set_separator/#empty_field/
// #unset_field lines appear only in the first header, #path only when the
// path changes ("-" for none), and #fields/#types only when the shape
// changes. The _path column itself is never written as data.

import { decodeFloat, decodeIntExact, decodeUintExact, float16ToNumber } from '../../zed/primitive';
import { formatFloatF } from '../../zed/floatfmt';
import { formatIP, formatNet } from '../../zed/ipnet';
import { formatType } from '../../zed/typestring';
import { ID, Kind, Type, TypeArray, TypeNamed, TypePrimitive, TypeSet } from '../../zed/types';
import { Value } from '../../zed/value';
import { ZcodeError, ZIter } from '../../zed/zcode';
import { DuplicateFieldError } from '../../zed/context';
import { ByteSink, FormatError, OutputBuffer, ValueWriter, WriterOptions } from '../io';
import { formatValue } from '../zson';
import { TextBuffer } from '../textbuffer';
import { writeZeekString } from './escape';
import { FlatLayout, Flattener } from './flatten';
import { formatZeekTimeBody } from './time';

export const ERR_INCOMPATIBLE = 'type cannot be represented in zeek format';

/** The Zeek type name of a Zed type, or throws (the reference's zngTypeToZeek). */
export function zeekTypeName(t: Type): string {
  if (t instanceof TypeArray) return `vector[${zeekTypeName(t.type)}]`;
  if (t instanceof TypeSet) return `set[${zeekTypeName(t.type)}]`;
  if (t instanceof TypeNamed) {
    if (t.name === 'zenum') return 'enum';
    if (t.name === 'port') return 'port';
    return zeekTypeName(t.type);
  }
  if (t instanceof TypePrimitive) {
    switch (t.id) {
      case ID.Uint8:
      case ID.Int8:
      case ID.Int16:
      case ID.Int32:
      case ID.Int64:
      case ID.Uint16:
      case ID.Uint32:
        return 'int';
      case ID.Uint64:
        return 'count';
      case ID.Float16:
      case ID.Float32:
      case ID.Float64:
        return 'double';
      case ID.IP:
        return 'addr';
      case ID.Net:
        return 'subnet';
      case ID.Duration:
        return 'interval';
      case ID.Bool:
      case ID.String:
      case ID.Time:
        return t.name;
    }
  }
  throw new FormatError('zeek', `type ${formatType(t)}: ${ERR_INCOMPATIBLE}`);
}

export class ZeekWriter implements ValueWriter {
  private out: OutputBuffer;
  private flattener = new Flattener();
  private layout: FlatLayout | undefined;
  // The record being written.
  private line = new TextBuffer(1024);
  private path = '';
  private wroteHeader = false;

  constructor(sink: ByteSink, _opts?: WriterOptions) {
    this.out = new OutputBuffer(sink);
  }

  async write(vals: Value[]): Promise<void> {
    for (const v of vals) {
      try {
        this.writeValue(v);
      } catch (e) {
        if (e instanceof DuplicateFieldError || e instanceof ZcodeError) {
          throw new FormatError('zeek', e.message);
        }
        throw e;
      }
      if (this.out.full) await this.out.flush();
    }
  }

  async close(): Promise<void> {
    await this.out.end();
  }

  private writeValue(v: Value): void {
    if (v.type.kind !== Kind.Record) {
      // The reference crashes here; we say what happened, as its CSV writer does.
      throw new FormatError('zeek', `Zeek output encountered non-record value: ${formatValue(v)}`);
    }
    const fl = this.flattener;
    const layout = fl.layout(v.type);
    const n = fl.locate(v.type, v.buf, v.off, v.len);
    const names = layout.names;
    const types = layout.types;
    let path = '';
    const pi = names.indexOf('_path');
    if (pi >= 0 && fl.lens[pi] >= 0 && types[pi].under.id === ID.String) {
      path = v.buf.toString('utf8', fl.offs[pi], fl.offs[pi] + fl.lens[pi]);
    }
    if (layout !== this.layout || path !== this.path) {
      this.writeHeader(layout, path);
      this.layout = layout;
    }
    const line = this.line;
    line.len = 0;
    let sep = false;
    for (let i = 0; i < n; i++) {
      if (i === pi) continue;
      if (sep) line.byte(9);
      sep = true;
      const len = fl.lens[i];
      if (len < 0) line.byte(0x2d);
      else this.formatAny(types[i], v.buf, fl.offs[i], len, false);
    }
    line.byte(10);
    this.out.raw(line.buf, 0, line.len);
  }

  private writeHeader(layout: FlatLayout, path: string): void {
    let s = '';
    if (!this.wroteHeader) {
      this.wroteHeader = true;
      s += '#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n';
    }
    if (path !== this.path) {
      this.path = path;
      s += `#path\t${path === '' ? '-' : path}\n`;
    }
    if (layout !== this.layout) {
      let fields = '#fields';
      let types = '#types';
      layout.names.forEach((name, i) => {
        if (name === '_path') return;
        fields += '\t' + name;
        types += '\t' + zeekTypeName(layout.types[i]);
      });
      s += fields + '\n' + types + '\n';
    }
    this.out.utf8(s);
  }

  /** Writes a non-null value (or a null set element, as its zero value). */
  private formatAny(t: Type, buf: Buffer, off: number, len: number, inContainer: boolean): void {
    const out = this.line;
    const u = t.under;
    if (u instanceof TypeArray || u instanceof TypeSet) {
      if (len <= 0) {
        out.text('(empty)');
        return;
      }
      const isArray = u instanceof TypeArray;
      const it = new ZIter(buf, off, off + len);
      let first = true;
      while (!it.done()) {
        it.next();
        if (!first) out.byte(0x2c);
        first = false;
        if (it.len < 0 && isArray) out.byte(0x2d);
        else this.formatAny(u.type, buf, it.off, it.len < 0 ? 0 : it.len, true);
      }
      return;
    }
    switch (u.id) {
      case ID.String:
        writeZeekString(out, buf, off, off + len, inContainer);
        return;
      case ID.Time:
      case ID.Duration:
        out.text(formatZeekTimeBody(buf, off, len));
        return;
      case ID.Bool:
        out.byte(len > 0 && buf[off] !== 0 ? 0x54 : 0x46);
        return;
      case ID.Float64:
        out.text(formatFloatF(decodeFloat(buf, off, len), 64));
        return;
      case ID.Float32:
        out.text(formatFloatF(decodeFloat(buf, off, len), 32));
        return;
      case ID.Float16:
        out.text(formatFloatF(len === 2 ? float16ToNumber(buf[off] | (buf[off + 1] << 8)) : 0, 32));
        return;
      case ID.Int8:
      case ID.Int16:
      case ID.Int32:
      case ID.Int64:
        out.text(String(decodeIntExact(buf, off, len)));
        return;
      case ID.Uint8:
      case ID.Uint16:
      case ID.Uint32:
      case ID.Uint64:
        out.text(String(decodeUintExact(buf, off, len)));
        return;
      case ID.IP:
        out.text(len === 0 ? 'invalid IP' : formatIP(buf, off, len));
        return;
      case ID.Net:
        out.text(len === 0 ? 'invalid Prefix' : formatNet(buf, off, len));
        return;
    }
    // zeekTypeName rejects every other type before any data is written.
    throw new FormatError('zeek', `type ${formatType(t)}: ${ERR_INCOMPATIBLE}`);
  }
}
