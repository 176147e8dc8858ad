// Test helpers for the runtime operators: ZSON in, ZSON out, hand-built
// expressions, and sources that record how they were used.

import { readdirSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatValue, parseValues } from '../../../src/formats/zson';
import { Expr } from '../../../src/query/expr/expr';
import { isError } from '../../../src/query/expr/errors';
import { Literal } from '../../../src/query/expr/literal';
import { fieldPath } from '../../../src/query/expr/path';
import { QueryContext, QueryContextOptions } from '../../../src/query/runtime/context';
import { Operator, pullAll } from '../../../src/query/runtime/operator';
import { SPILL_PREFIX } from '../../../src/query/runtime/ops/spill';
import { decodeInt, decodeUint } from '../../../src/zed/primitive';
import { isSigned, Type, TypeInt64 } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { encodeInt } from '../../../src/zed/make';

export function newCtx(opts: QueryContextOptions = {}): QueryContext {
  return new QueryContext(opts);
}

/** Values of a ZSON text in ctx's type context. */
export function zson(ctx: QueryContext, text: string): Value[] {
  return parseValues(ctx.zctx, text);
}

/** A source that hands out values in batches of batchSize and records its use. */
export class TestSource implements Operator {
  pulls = 0;
  closed = false;
  private pos = 0;

  constructor(
    private readonly vals: Value[],
    private readonly batchSize = 1024,
  ) {}

  async pull(): Promise<Value[] | null> {
    this.pulls++;
    if (this.closed || this.pos >= this.vals.length) return null;
    const b = this.vals.slice(this.pos, this.pos + this.batchSize);
    this.pos += b.length;
    return b;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Values handed out so far. */
  get consumed(): number {
    return this.pos;
  }
}

/** A source over a ZSON text. */
export function src(ctx: QueryContext, text: string, batchSize = 1024): TestSource {
  return new TestSource(zson(ctx, text), batchSize);
}

/** Everything the operator produces, as ZSON lines. */
export async function run(op: Operator): Promise<string[]> {
  return (await pullAll(op)).map((v) => formatValue(v));
}

/** A field path expression from dotted text ("" or "this" for this). */
export function field(ctx: QueryContext, path: string): Expr {
  return fieldPath(ctx.zctx, path === '' || path === 'this' ? [] : path.split('.'));
}

export function lit(ctx: QueryContext, text: string): Expr {
  return new Literal(zson(ctx, text)[0]);
}

/** An expression from a function of the input value (result copied per call). */
export function fn(f: (v: Value) => Value): Expr {
  return { eval: f };
}

/** a + b over integer fields, as int64 (a stand-in for the real arithmetic). */
export function addInts(a: Expr, b: Expr): Expr {
  const num = (v: Value) =>
    isSigned(v.type.under.id) ? decodeInt(v.buf, v.off, v.len) : decodeUint(v.buf, v.off, v.len);
  return fn((self) => {
    const x = num(a.eval(self));
    const y = num(b.eval(self));
    return Value.fromBytes(TypeInt64, encodeInt(x + y));
  });
}

/** len(string) as int64. */
export function strlen(e: Expr): Expr {
  return fn((self) => {
    const v = e.eval(self);
    return Value.fromBytes(TypeInt64, encodeInt(v.len < 0 ? 0 : v.len));
  });
}

/** A comparison `e OP n` of an integer expression with a constant. */
export function cmpInt(
  e: Expr,
  op: '<' | '<=' | '>' | '>=' | '==',
  n: number,
  boolType: Type,
): Expr {
  const t = Value.fromBytes(boolType, Buffer.from([1]));
  const f = Value.fromBytes(boolType, Buffer.from([0]));
  return fn((self) => {
    const v = e.eval(self);
    if (isError(v)) return v;
    const x = isSigned(v.type.under.id)
      ? decodeInt(v.buf, v.off, v.len)
      : decodeUint(v.buf, v.off, v.len);
    const r =
      op === '<'
        ? x < n
        : op === '<='
          ? x <= n
          : op === '>'
            ? x > n
            : op === '>='
              ? x >= n
              : x === n;
    return r ? t : f;
  });
}

/** A fresh temp dir for spill tests, and a check that no spill dirs are left in it. */
export function spillTmp(): { dir: string; leftovers: () => string[]; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'zlake-ops-test-'));
  return {
    dir,
    leftovers: () => readdirSync(dir).filter((n) => n.startsWith(SPILL_PREFIX)),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Lines of a multi-line expected output. */
export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** `head n` as a test stand-in (the real one is another engineer's). */
export function head(parent: Operator, n: number): Operator {
  let left = n;
  return {
    async pull() {
      if (left <= 0) {
        await parent.close();
        return null;
      }
      const b = await parent.pull();
      if (b === null) return null;
      const out = b.slice(0, left);
      left -= out.length;
      return out;
    },
    close: () => parent.close(),
  };
}
