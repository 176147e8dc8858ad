// The SQL operator:
//
//     SELECT *|expr [AS lval], ... [FROM table [[AS] alias] | FROM *]
//       [[ANTI|INNER|LEFT|RIGHT] JOIN table [[AS] alias] ON lkey = rkey]...
//       [WHERE pred] [GROUP BY fields] [HAVING pred]
//       [ORDER BY exprs [ASC|DESC]] [LIMIT n]
//
// Keywords are case-insensitive and need no word boundary, as in the
// reference grammar.

import type { Assignment, Expr, SQLExpr, SQLFrom, SQLJoin, SQLOrderBy } from '../ast';
import { uintValue } from './lexical';
import { SearchParser } from './search';

type JoinStyle = SQLJoin['style'];

export abstract class SQLParser extends SearchParser {
  protected sqlOp(): SQLExpr | null {
    const select = this.sqlSelect();
    if (select === undefined) return null;
    const from = this.sqlFrom();
    const joins: SQLJoin[] = [];
    for (;;) {
      const j = this.sqlJoin();
      if (j === null) break;
      joins.push(j);
    }
    const where = this.sqlClause(['where'], () => this.logicalOr());
    const groupBy = this.sqlClause(['group', 'by'], () => this.fieldExprs()) ?? [];
    const having = this.sqlClause(['having'], () => this.logicalOr());
    const orderBy = this.sqlOrderBy();
    const limit = this.sqlLimit();
    return {
      kind: 'SQLExpr',
      select,
      from: from ?? null,
      joins,
      where,
      groupBy,
      having,
      orderBy,
      limit,
    };
  }

  /** `SELECT *` (null) or `SELECT assignments`; undefined when absent. */
  private sqlSelect(): Assignment[] | null | undefined {
    const start = this.pos;
    if (this.litI('select') && this.sp1() && this.lit('*')) return null;
    this.pos = start;
    if (this.litI('select') && this.sp1()) {
      const list = this.commaList(() => this.sqlAssignment());
      if (list !== null) return list;
    }
    this.pos = start;
    return undefined;
  }

  /** expr [AS lval] */
  private sqlAssignment(): Assignment | null {
    const rhs = this.expr();
    if (rhs === null) return null;
    const save = this.pos;
    if (this.sp1() && this.litI('as') && this.sp1()) {
      const lhs = this.lval();
      if (lhs !== null) return { kind: 'Assignment', lhs, rhs };
    }
    this.pos = save;
    return { kind: 'Assignment', lhs: null, rhs };
  }

  /** `FROM table [alias]` (an SQLFrom), `FROM *` (null), or undefined when absent. */
  private sqlFrom(): SQLFrom | null | undefined {
    const start = this.pos;
    if (this.sp1() && this.litI('from') && this.sp1()) {
      const table = this.expr();
      if (table !== null) return { table, alias: this.sqlAlias() };
    }
    this.pos = start;
    if (this.sp1() && this.litI('from') && this.sp1() && this.lit('*')) return null;
    this.pos = start;
    return undefined;
  }

  /** `_ AS _ lval`, or `_ lval` when lval is not an SQL keyword. */
  private sqlAlias(): Expr | null {
    const start = this.pos;
    if (this.sp1() && this.litI('as') && this.sp1()) {
      const id = this.lval();
      if (id !== null) return id;
    }
    this.pos = start;
    if (this.sp1() && this.not(() => this.sqlToken() && this.sp1())) {
      const id = this.lval();
      if (id !== null) return id;
    }
    this.pos = start;
    return null;
  }

  private sqlJoin(): SQLJoin | null {
    const start = this.pos;
    const style = this.sqlJoinStyle();
    if (this.sp1() && this.litI('join') && this.sp1()) {
      const table = this.expr();
      if (table !== null) {
        const alias = this.sqlAlias();
        if (this.sp1() && this.litI('on') && this.sp1()) {
          const leftKey = this.joinKey();
          if (leftKey !== null) {
            this.sp();
            if (this.lit('=')) {
              this.sp();
              const rightKey = this.joinKey();
              if (rightKey !== null) return { table, style, leftKey, rightKey, alias };
            }
          }
        }
      }
    }
    this.pos = start;
    return null;
  }

  /** `_ ANTI|INNER|LEFT|RIGHT`, or nothing (inner). */
  private sqlJoinStyle(): JoinStyle {
    const start = this.pos;
    if (this.sp1()) {
      for (const s of ['anti', 'inner', 'left', 'right'] as const) if (this.litI(s)) return s;
    }
    this.pos = start;
    return 'inner';
  }

  /** `_ KW _ [KW _] body()`, or null (position kept) when absent. */
  private sqlClause<T>(keywords: string[], body: () => T | null): T | null {
    const start = this.pos;
    let ok = true;
    for (const k of keywords) {
      if (!(this.sp1() && this.litI(k))) {
        ok = false;
        break;
      }
    }
    if (ok && this.sp1()) {
      const r = body();
      if (r !== null) return r;
    }
    this.pos = start;
    return null;
  }

  private sqlOrderBy(): SQLOrderBy | null {
    const keys = this.sqlClause(['order', 'by'], () => this.exprs());
    if (keys === null) return null;
    const start = this.pos;
    if (this.sp1()) {
      if (this.litI('asc')) return { kind: 'SQLOrderBy', keys, order: 'asc' };
      if (this.litI('desc')) return { kind: 'SQLOrderBy', keys, order: 'desc' };
    }
    this.pos = start;
    return { kind: 'SQLOrderBy', keys, order: 'asc' };
  }

  private sqlLimit(): number {
    const n = this.sqlClause(['limit'], () => this.uintString());
    return n === null ? 0 : (uintValue(n) ?? 0);
  }

  /** A join key: an lval or a parenthesized expression. */
  protected joinKey(): Expr | null {
    const l = this.lval();
    if (l !== null) return l;
    const start = this.pos;
    if (this.lit('(')) {
      const e = this.expr();
      if (e !== null && this.lit(')')) return e;
    }
    this.pos = start;
    return null;
  }
}
