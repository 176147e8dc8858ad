// Small constructors for expected syntax trees in the parser tests.

import type { Expr, ID, Op, Primitive, Seq, Term, Type, TypeValue } from '../../../src/query/ast';
import { parse } from '../../../src/query/parser';

export const id = (name: string): ID => ({ kind: 'ID', name });
export const int = (text: string): Primitive => ({ kind: 'Primitive', type: 'int64', text });
export const str = (text: string): Primitive => ({ kind: 'Primitive', type: 'string', text });
export const prim = (type: Primitive['type'], text: string): Primitive => ({
  kind: 'Primitive',
  type,
  text,
});
export const bin = (op: string, lhs: Expr, rhs: Expr): Expr =>
  ({ kind: 'BinaryExpr', op, lhs, rhs }) as Expr;
export const dot = (lhs: Expr, name: string): Expr => ({
  kind: 'BinaryExpr',
  op: '.',
  lhs,
  rhs: id(name),
});
export const call = (name: string, args: Expr[], where: Expr | null = null): Expr => ({
  kind: 'Call',
  name,
  args,
  where,
});
export const term = (text: string, value: Term['value'] = str(text)): Term => ({
  kind: 'Term',
  text,
  value,
});
export const typeValue = (value: Type): TypeValue => ({ kind: 'TypeValue', value });
export const primType = (name: string): Type => ({ kind: 'TypePrimitive', name }) as Type;

/** The operators of a query. */
export const ops = (q: string): Seq => parse(q);
/** The only operator of a one-operator query. */
export function op(q: string): Op {
  const seq = parse(q);
  if (seq.length !== 1) throw new Error(`expected one operator in ${q}, got ${seq.length}`);
  return seq[0];
}
/** The expression e as parsed in `yield e`. */
export function expr(e: string): Expr {
  const o = op(`yield ${e}`);
  if (o.kind !== 'Yield' || o.exprs.length !== 1) throw new Error(`not one yield expr: ${e}`);
  return o.exprs[0];
}
/** The expression of a bare (implied) operator query such as a search. */
export function opExpr(q: string): Expr {
  const o = op(q);
  if (o.kind !== 'OpExpr') throw new Error(`expected OpExpr for ${q}, got ${o.kind}`);
  return o.expr;
}
