// The SQL operator (SELECT ... FROM ... JOIN ... WHERE ... GROUP BY ...
// HAVING ... ORDER BY ... LIMIT) translated into dataflow as the
// reference's compiler does: FROM and JOIN tables are values of a named
// type (filtered with is()), aliases wrap values in a record field, joins
// sort both sides and join them, GROUP BY is a summarize.

import * as ast from '../ast';
import { isAggregate } from '../aggregates';
import * as dag from './dag';
import { CompileError, pathString } from './errors';
import type { Analyzer } from './semantic';
import { typenameCall } from './semantic';

interface Pick {
  name: string[];
  agg: dag.Agg | null;
  assignment: { lhs: string[]; rhs: dag.Expr };
}

function pathEqual(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function pathIn(p: string[], list: string[][]): boolean {
  return list.some((q) => pathEqual(p, q));
}

function hasPrefixIn(p: string[], list: string[][]): boolean {
  return list.some((q) => q.length <= p.length && q.every((x, i) => x === p[i]));
}

function selection(a: Analyzer, select: ast.Assignment[]): Pick[] {
  const out: Pick[] = [];
  for (const s of select) {
    let name: string[];
    try {
      name = a.assignment(s, false).lhs;
    } catch (e) {
      throw new CompileError(`AS clause of SELECT: ${(e as Error).message}`);
    }
    let agg: dag.Agg | null = null;
    if (s.rhs.kind === 'Call' && isAggregate(s.rhs.name)) {
      if (s.rhs.args.length > 1) throw new CompileError(`${s.rhs.name}: wrong number of arguments`);
      const expr = s.rhs.args.length === 1 ? a.expr(s.rhs.args[0]) : null;
      agg = { kind: 'Agg', name: s.rhs.name, expr, where: null };
    }
    out.push({ name, agg, assignment: a.assignment(s, false) });
  }
  return out;
}

function tableFilter(a: Analyzer, table: ast.Expr): dag.Filter {
  let e = a.expr(table);
  // A bare name with no definition is a type name the data defines.
  if (e.kind === 'This' && e.path.length === 1 && a.scope.lookup(e.path[0]) === undefined) {
    e = typenameCall(e.path[0]);
  }
  return { kind: 'Filter', expr: { kind: 'Call', name: 'is', args: [e] } };
}

function alias(a: Analyzer, e: ast.Expr | null): { cut: dag.Cut; id: string } | null {
  if (e === null) return null;
  let path: string[];
  try {
    path = a.field(e);
  } catch (err) {
    throw new CompileError(`illegal SQL alias: ${(err as Error).message}`);
  }
  return {
    cut: { kind: 'Cut', args: [{ lhs: path, rhs: { kind: 'This', path: [] } }] },
    id: e.kind === 'ID' ? e.name : '',
  };
}

/** The part of a WHERE predicate that depends only on the FROM table's alias. */
function eligible(id: string, e: dag.Expr): dag.Expr | null {
  switch (e.kind) {
    case 'Unary': {
      const o = eligible(id, e.operand);
      return o === null ? null : { kind: 'Unary', op: '!', operand: o };
    }
    case 'Literal':
      return e;
    case 'Dot':
      // <alias>.x is x once lifted above the alias cut. (Paths of this
      // are This nodes, which, as in the reference, are never lifted.)
      if (
        e.lhs.kind === 'Dot' &&
        e.lhs.lhs.kind === 'This' &&
        e.lhs.lhs.path.length === 0 &&
        e.lhs.rhs === id
      ) {
        return { kind: 'Dot', lhs: { kind: 'This', path: [] }, rhs: e.rhs };
      }
      return null;
    case 'Binary': {
      const l = eligible(id, e.lhs);
      const r = eligible(id, e.rhs);
      if (e.op === 'and') {
        if (l === null) return r;
        if (r === null) return l;
      }
      if (l !== null && r !== null) return dag.binary(e.op, l, r);
      return null;
    }
  }
  return null;
}

function sortBy(keys: dag.Expr[], order: 'asc' | 'desc' = 'asc'): dag.Sort {
  return { kind: 'Sort', args: keys, order, nullsFirst: false };
}

export function convertSQL(a: Analyzer, sql: ast.SQLExpr, seq: dag.Seq): dag.Seq {
  // As in the reference, an error in the select list is not reported.
  let picks: Pick[] = [];
  if (sql.select !== null) {
    try {
      picks = selection(a, sql.select);
    } catch {
      picks = [];
    }
  }
  const where = sql.where === null ? null : a.expr(sql.where);
  let ops: dag.Op[] = [];
  if (sql.from !== null) {
    const al = alias(a, sql.from.alias);
    ops.push(tableFilter(a, sql.from.table));
    if (al !== null && al.id !== '') {
      if (where !== null && sql.joins.every((j) => j.alias !== null && j.alias.kind === 'ID')) {
        const f = eligible(al.id, where);
        if (f !== null) ops.push({ kind: 'Filter', expr: f });
      }
      ops.push(al.cut);
    } else if (al !== null) {
      ops.push(al.cut);
    }
  }
  if (sql.joins.length > 0) {
    if (ops.length === 0) throw new CompileError('cannot JOIN without a FROM');
    for (const j of sql.joins) ops = join(a, ops, j);
  }
  if (where !== null) ops.push({ kind: 'Filter', expr: where });
  if (sql.groupBy.length > 0) {
    ops.push(groupBy(a, sql.groupBy, picks));
    if (sql.having !== null) ops.push({ kind: 'Filter', expr: a.expr(sql.having) });
  } else if (sql.select !== null) {
    if (sql.having !== null) throw new CompileError('HAVING clause used without GROUP BY');
    const sel = select(picks);
    if (sel !== null) ops.push(sel);
  }
  if (sql.orderBy !== null)
    ops.push(
      sortBy(
        sql.orderBy.keys.map((k) => a.expr(k)),
        sql.orderBy.order,
      ),
    );
  if (sql.limit !== 0) ops.push({ kind: 'Head', count: sql.limit });
  if (ops.length === 0) ops.push({ kind: 'Pass' });
  return [...seq, ...ops];
}

function join(a: Analyzer, left: dag.Op[], j: ast.SQLJoin): dag.Op[] {
  if (j.alias === null) {
    throw new CompileError(
      'JOIN currently requires alias, e.g., JOIN <type> <alias> (will be fixed soon)',
    );
  }
  const leftKey = a.expr(j.leftKey);
  const leftPath: dag.Seq = [...left, sortBy([leftKey])];
  const rightPath: dag.Seq = [tableFilter(a, j.table)];
  let al: { cut: dag.Cut; id: string } | null;
  try {
    al = alias(a, j.alias);
  } catch {
    throw new CompileError('JOIN alias must be a name');
  }
  rightPath.push(al!.cut);
  const rightKey = a.expr(j.rightKey);
  rightPath.push(sortBy([rightKey]));
  const id = al!.id;
  return [
    { kind: 'Fork', paths: [leftPath, rightPath] },
    {
      kind: 'Join',
      style: j.style,
      leftKey,
      rightKey,
      args: [{ lhs: [id], rhs: { kind: 'This', path: [id] } }],
    },
  ];
}

function select(picks: Pick[]): dag.Op | null {
  const nagg = picks.filter((p) => p.agg !== null).length;
  if (nagg === 0) {
    if (picks.length === 0) return null;
    return { kind: 'Cut', args: picks.map((p) => p.assignment) };
  }
  if (nagg !== picks.length)
    throw new CompileError('cannot mix aggregations and non-aggregations without a GROUP BY');
  return {
    kind: 'Summarize',
    keys: [],
    aggs: picks.map((p) => ({ lhs: p.assignment.lhs, agg: p.agg! })),
    limit: 0,
    inputSortDir: 0,
  };
}

function groupBy(a: Analyzer, groupByKeys: ast.Expr[], picks: Pick[]): dag.Summarize {
  const keys = groupByKeys.map((k) => {
    try {
      return a.field(k);
    } catch {
      throw new CompileError('bad GROUP BY key: expression is not a field reference');
    }
  });
  const all = picks.map((p) => p.name);
  for (const k of keys) {
    if (!pathIn(k, all)) {
      if (hasPrefixIn(k, all)) {
        throw new CompileError(
          `'${pathString(k)}': GROUP BY key cannot be a sub-field of the selected value`,
        );
      }
      throw new CompileError(`'${pathString(k)}': GROUP BY key not in selection`);
    }
  }
  const scalars = picks.filter((p) => p.agg === null);
  for (const s of scalars) {
    if (!pathIn(s.name, keys)) {
      throw new CompileError(
        `'${pathString(s.name)}': selected expression is missing from GROUP BY clause (and is not an aggregation)`,
      );
    }
  }
  return {
    kind: 'Summarize',
    keys: scalars.map((p) => p.assignment),
    aggs: picks.filter((p) => p.agg !== null).map((p) => ({ lhs: p.assignment.lhs, agg: p.agg! })),
    limit: 0,
    inputSortDir: 0,
  };
}
