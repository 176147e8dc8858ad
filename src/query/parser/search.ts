// Search expressions: the language of bare filters such as
//
//     foo "bar baz" *.com /a.*b/ x>1 not y or z
//
// Terms juxtaposed mean `and`; `and`, `or`, `not`/`!` and parentheses
// combine them. A term is a glob, a regexp, a literal or keyword (matched
// anywhere in a value: a Term node), `*` (true), a comparison, or a call.

import type { Expr, Term } from '../ast';
import type { Memo } from './cursor';
import { ExprParser } from './expr';

export abstract class SearchParser extends ExprParser {
  /** `file`/`get`/`pool`/`pass` source of a `from ( ... )` leg; defined by the operator layer. */
  protected abstract fromSource(): unknown;
  /** `case expr` or `default` of a switch leg; defined by the operator layer. */
  protected abstract caseClause(): unknown;

  private readonly searchMemo: Memo<Expr> = new Map();

  /** SearchAnd (_ or _ SearchAnd)* */
  protected searchBoolean(): Expr | null {
    return this.memo(this.searchMemo, () => this.searchOr());
  }

  private searchOr(): Expr | null {
    let lhs = this.searchAnd();
    if (lhs === null) return null;
    for (;;) {
      const save = this.pos;
      if (this.sp1() && this.orToken() && this.sp1()) {
        const rhs = this.searchAnd();
        if (rhs !== null) {
          lhs = { kind: 'BinaryExpr', op: 'or', lhs, rhs };
          continue;
        }
      }
      this.pos = save;
      return lhs;
    }
  }

  /**
   * SearchFactor ((_ and)? _ SearchFactor)*, where a factor may not begin
   * with `or` or with what starts the next leg of a from/switch.
   */
  private searchAnd(): Expr | null {
    let lhs = this.searchFactor();
    if (lhs === null) return null;
    for (;;) {
      const save = this.pos;
      if (!(this.sp1() && this.andToken())) this.pos = save;
      if (this.sp1() && this.not(() => this.orToken() || this.searchKeywordGuard())) {
        const rhs = this.searchFactor();
        if (rhs !== null) {
          lhs = { kind: 'BinaryExpr', op: 'and', lhs, rhs };
          continue;
        }
      }
      this.pos = save;
      return lhs;
    }
  }

  /** What begins a `from` leg (`pool x =>`) or a switch case: ends a search. */
  protected searchKeywordGuard(): boolean {
    const start = this.pos;
    if (this.fromSource() !== null) {
      this.sp();
      if (this.lit('=>')) {
        this.sp();
        return true;
      }
    }
    this.pos = start;
    if (this.caseClause() !== null) {
      this.sp();
      return true;
    }
    this.pos = start;
    return false;
  }

  private searchFactor(): Expr | null {
    const start = this.pos;
    let negated = false;
    if (this.notToken() && this.sp1()) negated = true;
    else {
      this.pos = start;
      if (this.lit('!')) {
        this.sp();
        negated = true;
      }
    }
    if (negated) {
      const e = this.searchFactor();
      if (e !== null) return { kind: 'UnaryExpr', op: '!', operand: e };
      this.pos = start;
    }
    if (this.lit('(')) {
      this.sp();
      const e = this.searchBoolean();
      if (e !== null) {
        this.sp();
        if (this.lit(')')) return e;
      }
      this.pos = start;
    }
    return this.searchExpr();
  }

  private searchExpr(): Expr | null {
    const glob = this.globPattern();
    if (glob !== null) return { kind: 'Glob', pattern: glob };
    const re = this.regexp();
    if (re !== null) return re;
    const start = this.pos;
    const value = this.searchValue();
    if (value !== null) {
      if (
        this.not(() => this.exprGuard()) ||
        this.and(() => this.sp1() && this.globPattern() !== null)
      ) {
        const term: Term = { kind: 'Term', text: this.text(start), value };
        return term;
      }
      this.pos = start;
    }
    if (this.lit('*')) {
      if (this.not(() => this.exprGuard()))
        return { kind: 'Primitive', type: 'bool', text: 'true' };
      this.pos = start;
    }
    return this.searchPredicate();
  }

  /** A literal, or a keyword (a Primitive string of its unescaped text). */
  private searchValue(): Term['value'] | null {
    const lit = this.literal();
    if (lit !== null) return lit;
    if (!this.not(() => this.regexpPattern() !== null)) return null;
    const kw = this.keyWord();
    return kw === null ? null : { kind: 'Primitive', type: 'string', text: kw };
  }

  /** What makes a value the start of an expression rather than a search term. */
  protected exprGuard(): boolean {
    this.sp();
    const p = this.pos;
    if (this.not(() => this.lit('=>')) && this.comparator() !== null) return true;
    this.pos = p;
    return (
      this.lit('+') ||
      this.lit('-') ||
      this.lit('*') ||
      this.lit('/') ||
      this.lit('%') ||
      this.lit(':') ||
      this.lit('(') ||
      this.lit('[') ||
      this.lit('~')
    );
  }

  /** `a op b` for a comparison op, or a call (with dereferences). */
  private searchPredicate(): Expr | null {
    const c = this.comparisonPair();
    if (c !== null) return c;
    const f = this.function();
    return f === null ? null : this.derefs(f);
  }
}
