// put: assigns computed values to fields of each record: an existing field
// is replaced in place, a new one appended (nested paths create or extend
// nested records), as the reference's Putter. The output layout is derived
// once per input type and set of clause result types.

import { formatValue } from '../../../formats/zson';
import { TypeContext } from '../../../zed/context';
import { Field, Type, TypeRecord } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { Builder, readUvarint, uv } from '../../../zed/zcode';
import { isError, isQuiet, newError } from '../../expr/errors';
import { Expr } from '../../expr/expr';
import { appendTagged } from '../../expr/recordbuilder';
import { QueryContext } from '../context';
import { ValueArena } from '../arena';
import { Operator } from '../operator';
import { Applier } from './apply';

export interface Clause {
  lhs: string[];
  rhs: Expr;
}

export class PutError extends Error {}

type Step =
  | { op: 'input'; index: number }
  | { op: 'clause'; index: number }
  | { op: 'record'; index: number; steps: Step[] };

interface Rule {
  type: TypeRecord;
  /** The clauses that applied (others were quiet) and their result types. */
  live: number[];
  types: Type[];
  step: Step & { op: 'record' };
  /**
   * The steps copy every input field in order and then append clause
   * values (the common `put new:=...`): the input body is copied whole.
   */
  appendOnly: boolean;
}

function isAppendOnly(step: Step & { op: 'record' }, nfields: number): boolean {
  const steps = step.steps;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (i < nfields ? s.op !== 'input' || s.index !== i : s.op !== 'clause') return false;
  }
  return steps.length >= nfields;
}

function sameRule(rule: Rule, live: number[], vals: Value[]): boolean {
  if (rule.live.length !== live.length) return false;
  for (let i = 0; i < live.length; i++) {
    if (rule.live[i] !== live[i] || rule.types[i] !== vals[i].type) return false;
  }
  return true;
}

function pathText(p: readonly string[]): string {
  return p.length === 0 ? 'this' : p.join('.');
}

function hasPrefix(p: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= p.length && prefix.every((x, i) => x === p[i]);
}

function equal(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && hasPrefix(a, b);
}

/** Checks a put's clauses as the reference does (throws PutError). */
export function checkClauses(clauses: readonly { lhs: string[] }[]): void {
  clauses.forEach((p, i) => {
    if (p.lhs.length === 0) throw new PutError("put: LHS cannot be 'this' (use 'yield' operator)");
    clauses.forEach((c, j) => {
      if (i === j) return;
      if (equal(p.lhs, c.lhs))
        throw new PutError(`put: multiple assignments to ${pathText(p.lhs)}`);
      if (c.lhs.length > p.lhs.length && hasPrefix(c.lhs, p.lhs)) {
        throw new PutError(
          `put: conflicting nested assignments to ${pathText(p.lhs)} and ${pathText(c.lhs)}`,
        );
      }
    });
  });
}

export class Putter {
  private readonly rules = new Map<TypeRecord, Rule>();
  private readonly vals: Value[] = [];
  private readonly live: number[] = [];
  private readonly offs: number[][] = [];
  private readonly lens: number[][] = [];

  constructor(
    private readonly zctx: TypeContext,
    readonly clauses: Clause[],
  ) {
    checkClauses(clauses);
  }

  /** True when the last apply() built a new record in the arena. */
  built = false;

  /**
   * The put result for v: v itself (no clause applied), an error, or a
   * new record built in the arena (then this.built is true).
   */
  apply(v: Value, arena: ValueArena): Value {
    this.built = false;
    const rt = v.type.under;
    if (!(rt instanceof TypeRecord)) {
      if (isError(v)) return v;
      return newError(this.zctx, `put: not a record: ${formatValue(v)}`);
    }
    const vals = this.vals;
    const live = this.live;
    let n = 0;
    for (let i = 0; i < this.clauses.length; i++) {
      const r = this.clauses[i].rhs.eval(v);
      if (r.type.kind === 7 && isQuiet(r)) continue;
      vals[n] = r;
      live[n] = i;
      n++;
    }
    if (n === 0) return v;
    if (vals.length !== n) {
      vals.length = n;
      live.length = n;
    }
    let rule = this.rules.get(rt);
    if (rule === undefined || !sameRule(rule, live, vals)) {
      const clauses = live.map((i) => this.clauses[i]);
      const [step, type] = this.deriveRecord([], rt.fields, clauses, vals);
      const appendOnly = isAppendOnly(step, rt.fields.length);
      rule = { type, live: live.slice(), types: vals.map((x) => x.type), step, appendOnly };
      this.rules.set(rt, rule);
    }
    arena.begin();
    if (rule.appendOnly && v.len >= 0) {
      const b = arena.b;
      b.grow(v.len);
      v.buf.copy(b.buf, b.len, v.off, v.off + v.len);
      b.len += v.len;
      const steps = rule.step.steps;
      for (let i = rt.fields.length; i < steps.length; i++) {
        const c = vals[(steps[i] as { index: number }).index];
        appendTagged(arena.b, c.buf, c.off, c.len);
      }
      this.built = true;
      return arena.end(rule.type);
    }
    this.build(rule.step, v.buf, v.off, v.len, arena.b, 0);
    this.built = true;
    return arena.end(rule.type);
  }

  private deriveRecord(
    parent: string[],
    inFields: readonly Field[],
    clauses: Clause[],
    vals: Value[],
  ): [Step & { op: 'record' }, TypeRecord] {
    const steps: Step[] = [];
    const fields: Field[] = [];
    inFields.forEach((f, i) => {
      const path = [...parent, f.name];
      const m = clauses.findIndex(
        (c) => equal(path, c.lhs) || (c.lhs.length > path.length && hasPrefix(c.lhs, path)),
      );
      if (m < 0) {
        steps.push({ op: 'input', index: i });
        fields.push(f);
      } else if (clauses[m].lhs.length === path.length) {
        steps.push({ op: 'clause', index: m });
        fields.push({ name: f.name, type: vals[m].type });
      } else {
        const inner = f.type.under instanceof TypeRecord ? f.type.under.fields : [];
        const [step, t] = this.deriveRecord(path, inner, clauses, vals);
        step.index = i;
        steps.push(step);
        fields.push({ name: f.name, type: t });
      }
    });
    clauses.forEach((c, i) => {
      if (!hasPrefix(c.lhs, parent) || c.lhs.length === parent.length) return;
      const name = c.lhs[parent.length];
      if (fields.some((f) => f.name === name)) return;
      if (c.lhs.length === parent.length + 1) {
        steps.push({ op: 'clause', index: i });
        fields.push({ name, type: vals[i].type });
      } else {
        const [step, t] = this.deriveRecord([...parent, name], [], clauses, vals);
        step.index = -1;
        steps.push(step);
        fields.push({ name, type: t });
      }
    });
    return [{ op: 'record', index: -1, steps }, this.zctx.lookupTypeRecord(fields)];
  }

  private build(
    step: Step & { op: 'record' },
    buf: Buffer,
    off: number,
    len: number,
    b: Builder,
    depth: number,
  ): void {
    // Offsets of the input record's fields at this depth.
    const offs = (this.offs[depth] ??= []);
    const lens = (this.lens[depth] ??= []);
    let n = 0;
    if (len > 0) {
      const end = off + len;
      let p = off;
      while (p < end) {
        const tag = readUvarint(buf, p, end);
        offs[n] = uv.end;
        lens[n] = tag - 1;
        p = uv.end + (tag > 0 ? tag - 1 : 0);
        n++;
      }
    }
    for (const s of step.steps) {
      switch (s.op) {
        case 'input':
          if (s.index < n) appendTagged(b, buf, offs[s.index], lens[s.index]);
          else b.appendNull();
          break;
        case 'clause': {
          const v = this.vals[s.index];
          appendTagged(b, v.buf, v.off, v.len);
          break;
        }
        case 'record':
          b.beginContainer();
          if (s.index >= 0 && s.index < n)
            this.build(s, buf, offs[s.index], lens[s.index], b, depth + 1);
          else this.build(s, buf, off, 0, b, depth + 1);
          b.endContainer();
          break;
      }
    }
  }
}

export class Put extends Applier {
  constructor(
    ctx: QueryContext,
    parent: Operator,
    private readonly putter: Putter,
  ) {
    super(ctx, parent);
  }

  protected apply(v: Value): Value {
    const r = this.putter.apply(v, this.arena);
    if (this.putter.built) this.built = r;
    return r;
  }
}
