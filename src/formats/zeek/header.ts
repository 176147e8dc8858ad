// Zeek log header directives (#separator, #fields, #types, #path, ...)
// and the record type they describe, as the reference derives it:
//
// - Zeek types map to Zed types: addr→ip, bool, count→uint64,
//   double→float64, enum→zenum=string, int→int64, interval→duration,
//   port→port=uint16, string, subnet→net, time, and set[T]/vector[T] of
//   those to sets and arrays.
// - Dotted field names become nested records; the fields of one record
//   are first made adjacent (stable), remembering each field's column.
// - A "_path" string field is put first when the header has a #path and
//   no "_path" column.

import { DuplicateFieldError, TypeContext } from '../../zed/context';
import {
  Field,
  Type,
  TypeBool,
  TypeDuration,
  TypeFloat64,
  TypeInt64,
  TypeIP,
  TypeNet,
  TypeRecord,
  TypeString,
  TypeTime,
  TypeUint16,
  TypeUint64,
} from '../../zed/types';
import { unescapeZeek } from './escape';
import { ParseError } from './strconv';

/** The error when data arrives without a usable #fields/#types pair. */
export const ERR_BAD_RECORD_DEF = 'bad types/fields definition in zeek header';

/** Most levels of record nesting a dotted field name may ask for. */
const MAX_NESTING = 1000;

function badField(field: string): ParseError {
  return new ParseError(`encountered bad header field ${field} parsing zeek log`);
}

interface HeaderField {
  name: string;
  type: Type | undefined;
}

export class ZeekHeader {
  separator = ' ';
  setSeparator = '';
  emptyField = '';
  unsetField = '';
  path = '';
  open = '';
  close = '';
  /** Count of unrecognised directives (ignored, as the reference does). */
  unknown = 0;

  private fields: HeaderField[] = [];
  private needFields = false;
  private needTypes = false;

  /** The record type of data lines, once computed (reset by #fields/#types). */
  descriptor: TypeRecord | undefined;
  /** Whether the descriptor starts with a _path field not in the data. */
  addPath = false;
  /** For each field of the descriptor, in order, the data column it comes from. */
  sourceFields: number[] = [];

  constructor(private ctx: TypeContext) {}

  /** Applies a directive line (the text after '#'). Throws ParseError. */
  parseDirective(text: string): void {
    const tokens = text.split(this.separator);
    switch (tokens[0]) {
      case 'separator': {
        if (tokens.length !== 2) throw badField('separator');
        const raw = Buffer.from(tokens[1], 'utf8');
        this.separator = unescapeZeek(raw, 0, raw.length).toString('utf8');
        break;
      }
      case 'set_separator':
        if (tokens.length !== 2) throw badField('set_separator');
        this.setSeparator = tokens[1];
        break;
      case 'empty_field':
        if (tokens.length !== 2) throw badField('empty_field');
        if (tokens[1] !== '(empty)') {
          throw badField(`#empty_field (non-standard value '${tokens[1]}')`);
        }
        this.emptyField = tokens[1];
        break;
      case 'unset_field':
        if (tokens.length !== 2) throw badField('unset_field');
        if (tokens[1] !== '-') {
          throw badField(`#unset_field (non-standard value '${tokens[1]}')`);
        }
        this.unsetField = tokens[1];
        break;
      case 'path':
        if (tokens.length !== 2) throw badField('path');
        this.path = tokens[1] === '-' ? '' : tokens[1];
        break;
      case 'open':
        if (tokens.length !== 2) throw badField('open');
        this.open = tokens[1];
        break;
      case 'close':
        if (tokens.length > 2) throw badField('close');
        this.close = tokens.length === 1 ? '' : tokens[1];
        break;
      case 'fields':
        if (tokens.length < 2) throw badField('fields');
        this.parseFields(tokens.slice(1));
        break;
      case 'types':
        if (tokens.length < 2) throw badField('types');
        this.parseTypes(tokens.slice(1));
        break;
      default:
        this.unknown++;
    }
  }

  private parseFields(names: string[]): void {
    if (this.fields.length !== names.length) {
      this.fields = names.map(() => ({ name: '', type: undefined }));
      this.needTypes = true;
    }
    names.forEach((name, k) => (this.fields[k].name = name));
    this.needFields = false;
    this.descriptor = undefined;
  }

  private parseTypes(types: string[]): void {
    if (this.fields.length !== types.length) {
      this.fields = types.map(() => ({ name: '', type: undefined }));
      this.needFields = true;
    }
    types.forEach((t, k) => (this.fields[k].type = this.parseType(t)));
    this.needTypes = false;
    this.descriptor = undefined;
  }

  private parseType(text: string): Type {
    const s = text.trim();
    const bracket = s.indexOf('[');
    if (bracket >= 0 && s.endsWith(']')) {
      const inner = this.primitive(s.slice(bracket + 1, -1));
      const kind = s.slice(0, bracket);
      if (inner && kind === 'set') return this.ctx.lookupTypeSet(inner);
      if (inner && kind === 'vector') return this.ctx.lookupTypeArray(inner);
    }
    const t = this.primitive(s);
    if (!t) throw new ParseError(`unknown type: ${s}`);
    return t;
  }

  private primitive(text: string): Type | undefined {
    switch (text.trim()) {
      case 'addr':
        return TypeIP;
      case 'bool':
        return TypeBool;
      case 'count':
        return TypeUint64;
      case 'double':
        return TypeFloat64;
      case 'enum':
        return this.ctx.lookupTypeNamed('zenum', TypeString);
      case 'int':
        return TypeInt64;
      case 'interval':
        return TypeDuration;
      case 'port':
        return this.ctx.lookupTypeNamed('port', TypeUint16);
      case 'string':
        return TypeString;
      case 'subnet':
        return TypeNet;
      case 'time':
        return TypeTime;
    }
    return undefined;
  }

  /** Computes the descriptor if needed. Throws ParseError. */
  ensureDescriptor(): TypeRecord {
    if (this.descriptor) return this.descriptor;
    if (this.fields.length === 0 || this.needFields || this.needTypes) {
      throw new ParseError(ERR_BAD_RECORD_DEF);
    }
    for (const f of this.fields) {
      // Deeper names would cost quadratic time below (as in the reference).
      if (f.name.split('.').length > MAX_NESTING) {
        throw new ParseError('zeek field names nested too deeply');
      }
    }
    const { fields, sources } = coalesceRecordFields(this.fields as Field[]);
    let hasPath = false;
    for (const f of fields) if (f.name === '_path') hasPath = true;
    try {
      let out = unflatten(this.ctx, fields);
      this.addPath = this.path !== '' && !hasPath;
      if (this.addPath) out = [{ name: '_path', type: TypeString }, ...out];
      this.descriptor = this.ctx.lookupTypeRecord(out);
    } catch (e) {
      if (e instanceof DuplicateFieldError) throw new ParseError(e.message);
      throw e;
    }
    this.sourceFields = sources;
    return this.descriptor;
  }
}

/**
 * A permutation of fields in which the fields of each nested record are
 * adjacent, with the source column of each.
 */
function coalesceRecordFields(fields: readonly Field[]): { fields: Field[]; sources: number[] } {
  const prefixes = new Set<string>(['']);
  const out: Field[] = [];
  const sources: number[] = [];
  fields.forEach((f, i) => {
    out.push(f);
    sources.push(i);
    let prefix = prefixOf(f.name);
    while (!prefixes.has(prefix)) {
      prefixes.add(prefix);
      prefix = prefixOf(prefix);
    }
    if (prefix === '') return;
    for (let j = i; j > 0; j--) {
      if (out[j - 1].name.startsWith(prefix)) {
        out.splice(i, 1);
        out.splice(j, 0, f);
        sources.splice(i, 1);
        sources.splice(j, 0, i);
        break;
      }
    }
  });
  return { fields: out, sources };
}

/** The name up to and including its last dot (ignoring trailing dots), or "". */
function prefixOf(name: string): string {
  let end = name.length;
  while (end > 0 && name[end - 1] === '.') end--;
  if (end === 0) return '';
  const i = name.lastIndexOf('.', end - 1);
  return i < 0 ? '' : name.slice(0, i + 1);
}

/** Turns runs of adjacent "a.b" fields into nested records. */
function unflatten(ctx: TypeContext, fields: Field[]): Field[] {
  const out: Field[] = [];
  let i = 0;
  while (i < fields.length) {
    const f = fields[i];
    const dot = f.name.indexOf('.');
    if (dot < 0) {
      out.push(f);
      i++;
      continue;
    }
    const prefix = f.name.slice(0, dot + 1);
    const nested: Field[] = [];
    while (i + nested.length < fields.length && fields[i + nested.length].name.startsWith(prefix)) {
      const g = fields[i + nested.length];
      nested.push({ name: g.name.slice(prefix.length), type: g.type });
    }
    const inner = unflatten(ctx, nested);
    out.push({ name: f.name.slice(0, dot), type: ctx.lookupTypeRecord(inner) });
    i += nested.length;
  }
  return out;
}
