// Expressions: precedence levels from `?:` down to primaries, function
// calls and casts, field and index dereferences, literals of every kind,
// record/array/set/map constructors and lateral `(over ... | ...)`.
//
// Precedence, loosest first: `?:`, `or`, `and`, comparisons (`==` `!=`
// `in` `<` `<=` `>` `>=`, `~ /re/`; not associative), `+ -`, `* / %`,
// prefix `!`, prefix `-`, then calls, casts and dereferences.

import type {
  Assignment,
  BinaryOp,
  Call,
  Cast,
  Def,
  Expr,
  Field,
  Grep,
  ID,
  Literal,
  MapEntry,
  OverExpr,
  Pattern,
  Primitive,
  RecordElem,
  Regexp,
  Seq,
  SliceRange,
  Spread,
  TypeValue,
  VectorElem,
} from '../ast';
import { isHexDigit, type Memo } from './cursor';
import { TypeParser } from './types';

const THIS: () => ID = () => ({ kind: 'ID', name: 'this' });
const STRING_TYPE = (): TypeValue => ({
  kind: 'TypeValue',
  value: { kind: 'TypePrimitive', name: 'string' },
});

/** A dereference applied to an expression: `[index]`, `[from:to]` or `.name`. */
type Deref = { op: '['; rhs: Expr | SliceRange } | { op: '.'; rhs: ID };

export abstract class ExprParser extends TypeParser {
  private readonly exprMemo: Memo<Expr> = new Map();
  private readonly additiveMemo: Memo<Expr> = new Map();
  private readonly literalMemo: Memo<Literal> = new Map();
  private readonly functionMemo: Memo<Expr> = new Map();
  private readonly overMemo: Memo<OverExpr> = new Map();

  /** A pipeline (the body of a lateral expression); defined by the operator layer. */
  protected abstract seq(): Seq | null;

  // -------------------------------------------------------------------------
  // Word tokens

  /** `and`/`AND` as a whole word. */
  protected andToken(): boolean {
    return this.word('and', 'AND');
  }

  /** `or`/`OR` as a whole word. */
  protected orToken(): boolean {
    return this.word('or', 'OR');
  }

  /** `not`/`NOT` as a whole word. */
  protected notToken(): boolean {
    return this.word('not', 'NOT');
  }

  /** `by` as a whole word. */
  protected byToken(): boolean {
    return this.word('by');
  }

  private word(lower: string, upper?: string): boolean {
    const start = this.pos;
    if ((this.lit(lower) || (upper !== undefined && this.lit(upper))) && this.notIdentRest())
      return true;
    this.pos = start;
    return false;
  }

  // -------------------------------------------------------------------------
  // Precedence levels

  /** Expr: a conditional expression (the loosest level). */
  protected expr(): Expr | null {
    return this.memo(this.exprMemo, () => this.conditional());
  }

  private conditional(): Expr | null {
    const cond = this.logicalOr();
    if (cond === null) return null;
    const save = this.pos;
    this.sp();
    if (this.lit('?')) {
      this.sp();
      const then = this.expr();
      if (then !== null) {
        this.sp();
        if (this.lit(':')) {
          this.sp();
          const otherwise = this.expr();
          if (otherwise !== null) return { kind: 'Conditional', cond, then, else: otherwise };
        }
      }
    }
    this.pos = save;
    return cond;
  }

  /** Left-associative chain `operand (__ op __ operand)*`. */
  private chain(operand: () => Expr | null, op: () => BinaryOp | null): Expr | null {
    let lhs = operand();
    if (lhs === null) return null;
    for (;;) {
      const save = this.pos;
      this.sp();
      const o = op();
      if (o !== null) {
        this.sp();
        const rhs = operand();
        if (rhs !== null) {
          lhs = { kind: 'BinaryExpr', op: o, lhs, rhs };
          continue;
        }
      }
      this.pos = save;
      return lhs;
    }
  }

  /** `or` chain (also the predicate of `where` clauses and SQL WHERE/HAVING). */
  protected logicalOr(): Expr | null {
    return this.chain(
      () => this.logicalAnd(),
      () => (this.orToken() ? 'or' : null),
    );
  }

  private logicalAnd(): Expr | null {
    return this.chain(
      () => this.comparison(),
      () => (this.andToken() ? 'and' : null),
    );
  }

  private comparison(): Expr | null {
    const c = this.comparisonPair();
    if (c !== null) return c;
    const lhs = this.additive();
    if (lhs === null) return null;
    const save = this.pos;
    this.sp();
    if (this.lit('~')) {
      this.sp();
      const re = this.regexp();
      if (re !== null) return { kind: 'BinaryExpr', op: '~', lhs, rhs: re };
    }
    this.pos = save;
    return lhs;
  }

  /** `additive comparator additive` */
  protected comparisonPair(): Expr | null {
    const start = this.pos;
    const lhs = this.additive();
    if (lhs !== null) {
      this.sp();
      const op = this.comparator();
      if (op !== null) {
        this.sp();
        const rhs = this.additive();
        if (rhs !== null) return { kind: 'BinaryExpr', op, lhs, rhs };
      }
    }
    this.pos = start;
    return null;
  }

  /** `==` `!=` `in` `<=` `<` `>=` `>` */
  protected comparator(): '==' | '!=' | 'in' | '<=' | '<' | '>=' | '>' | null {
    if (this.lit('==')) return '==';
    if (this.lit('!=')) return '!=';
    const start = this.pos;
    if (this.lit('in')) {
      if (this.notIdentRest()) return 'in';
      this.pos = start;
    }
    if (this.lit('<=')) return '<=';
    if (this.lit('<')) return '<';
    if (this.lit('>=')) return '>=';
    if (this.lit('>')) return '>';
    return null;
  }

  /** `+`/`-` chain. */
  protected additive(): Expr | null {
    return this.memo(this.additiveMemo, () =>
      this.chain(
        () => this.multiplicative(),
        () => (this.lit('+') ? '+' : this.lit('-') ? '-' : null),
      ),
    );
  }

  private multiplicative(): Expr | null {
    return this.chain(
      () => this.notExpr(),
      () => (this.lit('*') ? '*' : this.lit('/') ? '/' : this.lit('%') ? '%' : null),
    );
  }

  private notExpr(): Expr | null {
    const start = this.pos;
    if (this.lit('!')) {
      this.sp();
      const e = this.notExpr();
      if (e !== null) return { kind: 'UnaryExpr', op: '!', operand: e };
      this.pos = start;
    }
    return this.negation();
  }

  /** `-x` unless the `-` begins a literal (`-1`, `-1h`, `-Inf`). */
  private negation(): Expr | null {
    const start = this.pos;
    if (this.not(() => this.literal() !== null) && this.lit('-')) {
      this.sp();
      const e = this.funcExpr();
      if (e !== null) return { kind: 'UnaryExpr', op: '-', operand: e };
      this.pos = start;
    }
    return this.funcExpr();
  }

  private funcExpr(): Expr | null {
    const c = this.cast();
    if (c !== null) return this.derefs(c);
    const f = this.function();
    if (f !== null) return this.derefs(f);
    return this.derefExpr() ?? this.primary();
  }

  // -------------------------------------------------------------------------
  // Dereferences, identifiers, lvalues

  /** Applies any following `[...]` and `.name` to e. */
  protected derefs(e: Expr): Expr {
    for (;;) {
      const d = this.deref();
      if (d === null) return e;
      e =
        d.op === '.'
          ? { kind: 'BinaryExpr', op: '.', lhs: e, rhs: d.rhs }
          : { kind: 'BinaryExpr', op: '[', lhs: e, rhs: d.rhs };
    }
  }

  private deref(): Deref | null {
    const start = this.pos;
    if (this.lit('[')) {
      const from = this.additive();
      if (from !== null) {
        this.sp();
        if (this.lit(':')) {
          this.sp();
          const to = this.additive();
          if (this.lit(']'))
            return { op: '[', rhs: { kind: 'BinaryExpr', op: ':', lhs: from, rhs: to } };
        }
      }
      this.pos = start + 1;
      this.sp();
      if (this.lit(':')) {
        this.sp();
        const to = this.additive();
        if (to !== null && this.lit(']'))
          return { op: '[', rhs: { kind: 'BinaryExpr', op: ':', lhs: null, rhs: to } };
      }
      this.pos = start + 1;
      const e = this.expr();
      if (e !== null && this.lit(']')) return { op: '[', rhs: e };
      this.pos = start;
    }
    if (this.lit('.')) {
      const id = this.identifier();
      if (id !== null) return { op: '.', rhs: id };
      this.pos = start;
    }
    return null;
  }

  protected identifier(): ID | null {
    const name = this.identifierName();
    return name === null ? null : { kind: 'ID', name };
  }

  /** An identifier and its dereferences (not the start of an IPv6 address). */
  protected derefExpr(): Expr | null {
    if (!this.not(() => this.ip6() !== null)) return null;
    const id = this.identifier();
    return id === null ? null : this.derefs(id);
  }

  /** An assignable (or field) reference: Lval. */
  protected lval(): Expr | null {
    return this.derefExpr();
  }

  /** Expr (, Expr)* */
  protected exprs(): Expr[] | null {
    return this.commaList(() => this.expr());
  }

  /** Lval (, Lval)* */
  protected fieldExprs(): Expr[] | null {
    return this.commaList(() => this.lval());
  }

  /** `lval := expr` */
  protected assignment(): Assignment | null {
    const a = this.separated(
      () => this.lval(),
      ':=',
      () => this.expr(),
    );
    return a === null ? null : { kind: 'Assignment', lhs: a[0], rhs: a[1] };
  }

  /** An assignment, or an expression whose name the compiler infers. */
  protected flexAssignment(): Assignment | null {
    const a = this.assignment();
    if (a !== null) return a;
    const rhs = this.expr();
    return rhs === null ? null : { kind: 'Assignment', lhs: null, rhs };
  }

  protected flexAssignments(): Assignment[] | null {
    return this.commaList(() => this.flexAssignment());
  }

  protected assignments(): Assignment[] | null {
    return this.commaList(() => this.assignment());
  }

  // -------------------------------------------------------------------------
  // Calls and casts

  /** `type(expr)`: a primitive type name or `<type>` applied like a function. */
  protected cast(): Cast | null {
    const start = this.pos;
    const type = this.castType();
    if (type !== null) {
      this.sp();
      if (this.lit('(')) {
        this.sp();
        const e = this.overExpr() ?? this.expr();
        if (e !== null) {
          this.sp();
          if (this.lit(')')) return { kind: 'Cast', expr: e, type };
        }
      }
    }
    this.pos = start;
    return null;
  }

  private castType(): TypeValue | null {
    const t = this.typeLiteral();
    if (t !== null) return t;
    const name = this.primitiveTypeName();
    return name === null ? null : { kind: 'TypeValue', value: { kind: 'TypePrimitive', name } };
  }

  /** A function call, including grep() and the /re/ forms of regexp() and regexp_replace(). */
  protected function(): Expr | null {
    return this.memo(this.functionMemo, () => this.functionForms());
  }

  private functionForms(): Expr | null {
    const g = this.grep();
    if (g !== null) return g;
    const start = this.pos;
    if (this.lit('regexp')) {
      const call = this.regexpCall();
      if (call !== null) return call;
      this.pos = start;
    }
    if (this.lit('regexp_replace')) {
      const call = this.regexpReplaceCall();
      if (call !== null) return call;
      this.pos = start;
    }
    if (this.not(() => this.funcGuard())) {
      const name = this.identifierName();
      if (name !== null) {
        this.sp();
        if (this.lit('(')) {
          this.sp();
          const args = this.functionArgs();
          this.sp();
          if (this.lit(')')) return { kind: 'Call', name, args, where: this.whereClause() };
        }
      }
    }
    this.pos = start;
    return null;
  }

  /** After `regexp`: `(/re/, expr)`. */
  private regexpCall(): Call | null {
    const args = this.fixedArgs([() => this.regexpString(), () => this.expr()]);
    return args === null ? null : { kind: 'Call', name: 'regexp', args, where: this.whereClause() };
  }

  /** After `regexp_replace`: `(expr, /re/, expr)`. */
  private regexpReplaceCall(): Call | null {
    const args = this.fixedArgs([() => this.expr(), () => this.regexpString(), () => this.expr()]);
    return args === null
      ? null
      : { kind: 'Call', name: 'regexp_replace', args, where: this.whereClause() };
  }

  /** A `/re/` argument, passed on as a string holding the pattern. */
  private regexpString(): Primitive | null {
    const re = this.regexpPattern();
    return re === null ? null : prim('string', re);
  }

  /** `__ ( __ a __ , __ b ... __ )`, each argument read by its own parser. */
  private fixedArgs(parsers: (() => Expr | null)[]): Expr[] | null {
    this.sp();
    if (!this.lit('(')) return null;
    const args: Expr[] = [];
    for (let i = 0; i < parsers.length; i++) {
      if (i > 0) {
        this.sp();
        if (!this.lit(',')) return null;
      }
      this.sp();
      const arg = parsers[i]();
      if (arg === null) return null;
      args.push(arg);
    }
    this.sp();
    return this.lit(')') ? args : null;
  }

  /** `not (` and `select (` are not calls. */
  protected funcGuard(): boolean {
    if (!this.lit('not') && !this.lit('select')) return false;
    this.sp();
    return this.lit('(');
  }

  private functionArgs(): Expr[] {
    const o = this.overExpr();
    if (o !== null) return [o];
    const list = this.exprs();
    if (list !== null) return list;
    this.sp();
    return [];
  }

  /** `_ where _ pred` after a call or aggregate, or null. */
  protected whereClause(): Expr | null {
    const start = this.pos;
    if (this.sp1() && this.lit('where') && this.sp1()) {
      const e = this.logicalOr();
      if (e !== null) return e;
    }
    this.pos = start;
    return null;
  }

  /** `grep(pattern[, expr])` */
  private grep(): Grep | null {
    const start = this.pos;
    if (this.lit('grep')) {
      this.sp();
      if (this.lit('(')) {
        this.sp();
        const pattern = this.pattern();
        if (pattern !== null) {
          this.sp();
          let e: Expr = THIS();
          const save = this.pos;
          let ok = false;
          if (this.lit(',')) {
            this.sp();
            const x = this.overExpr() ?? this.expr();
            if (x !== null) {
              this.sp();
              e = x;
              ok = true;
            }
          }
          if (!ok) this.pos = save;
          if (this.lit(')')) return { kind: 'Grep', pattern, expr: e };
        }
      }
    }
    this.pos = start;
    return null;
  }

  /** Regexp / Glob / QuotedString */
  protected pattern(): Pattern | null {
    const re = this.regexpPattern();
    if (re !== null) return { kind: 'Regexp', pattern: re };
    const glob = this.globPattern();
    if (glob !== null) return { kind: 'Glob', pattern: glob };
    const s = this.quotedString();
    return s === null ? null : { kind: 'String', text: s };
  }

  protected regexp(): Regexp | null {
    const re = this.regexpPattern();
    return re === null ? null : { kind: 'Regexp', pattern: re };
  }

  // -------------------------------------------------------------------------
  // Primaries

  private primary(): Expr | null {
    const e = this.record() ?? this.array() ?? this.set() ?? this.map() ?? this.literal();
    if (e !== null) return e;
    const start = this.pos;
    if (this.lit('(')) {
      this.sp();
      const o = this.overExpr();
      if (o !== null) {
        this.sp();
        if (this.lit(')')) return o;
      }
      this.pos = start + 1;
      this.sp();
      const x = this.expr();
      if (x !== null) {
        this.sp();
        if (this.lit(')')) return x;
      }
      this.pos = start;
    }
    return null;
  }

  /** `over exprs [with locals] | seq` (inside parentheses). */
  protected overExpr(): OverExpr | null {
    return this.memo(this.overMemo, () => this.overExprForm());
  }

  private overExprForm(): OverExpr | null {
    const start = this.pos;
    if (this.lit('over') && this.sp1()) {
      const exprs = this.exprs();
      if (exprs !== null) {
        const locals = this.locals() ?? [];
        this.sp();
        if (this.lit('|')) {
          this.sp();
          const body = this.seq();
          if (body !== null) return { kind: 'OverExpr', locals, exprs, body };
        }
      }
    }
    this.pos = start;
    return null;
  }

  /** `_ with name[=expr], ...` */
  protected locals(): Def[] | null {
    const start = this.pos;
    if (this.sp1() && this.lit('with') && this.sp1()) {
      const defs = this.commaList(() => this.localDef());
      if (defs !== null) return defs;
    }
    this.pos = start;
    return null;
  }

  private localDef(): Def | null {
    const name = this.identifierName();
    if (name === null) return null;
    const save = this.pos;
    this.sp();
    if (this.lit('=')) {
      this.sp();
      const e = this.expr();
      if (e !== null) return { name, expr: e };
    }
    this.pos = save;
    return { name, expr: { kind: 'ID', name } };
  }

  private record(): Expr | null {
    const elems = this.enclosed(
      '{',
      '}',
      () => this.commaList(() => this.recordElem()) ?? this.emptyList<RecordElem>(),
    );
    return elems === null ? null : { kind: 'RecordExpr', elems };
  }

  /** `__` standing for an empty element list. */
  private emptyList<T>(): T[] {
    this.sp();
    return [];
  }

  private recordElem(): RecordElem | null {
    return this.spread() ?? this.field() ?? this.identifier();
  }

  private spread(): Spread | null {
    const start = this.pos;
    if (this.lit('...')) {
      this.sp();
      const e = this.expr();
      if (e !== null) return { kind: 'Spread', expr: e };
    }
    this.pos = start;
    return null;
  }

  private field(): Field | null {
    const f = this.separated(
      () => this.fieldName(),
      ':',
      () => this.expr(),
    );
    return f === null ? null : { kind: 'Field', name: f[0], value: f[1] };
  }

  private vectorElems(): VectorElem[] {
    return this.commaList(() => this.vectorElem()) ?? this.emptyList<VectorElem>();
  }

  private vectorElem(): VectorElem | null {
    const s = this.spread();
    if (s !== null) return s;
    const e = this.expr();
    return e === null ? null : { kind: 'VectorValue', expr: e };
  }

  private array(): Expr | null {
    const elems = this.enclosed('[', ']', () => this.vectorElems());
    return elems === null ? null : { kind: 'ArrayExpr', elems };
  }

  private set(): Expr | null {
    const elems = this.enclosed('|[', ']|', () => this.vectorElems());
    return elems === null ? null : { kind: 'SetExpr', elems };
  }

  private map(): Expr | null {
    const entries = this.enclosed(
      '|{',
      '}|',
      () => this.commaList(() => this.mapEntry()) ?? this.emptyList<MapEntry>(),
    );
    return entries === null ? null : { kind: 'MapExpr', entries };
  }

  private mapEntry(): MapEntry | null {
    const e = this.separated(
      () => this.expr(),
      ':',
      () => this.expr(),
    );
    return e === null ? null : { key: e[0], value: e[1] };
  }

  // -------------------------------------------------------------------------
  // Literals

  /** A literal of any kind; the first form that matches wins, in the reference's order. */
  protected literal(): Literal | null {
    return this.memo(this.literalMemo, () => this.literalForms());
  }

  private literalForms(): Literal | null {
    const t = this.typeLiteral();
    if (t !== null) return t;
    const tmpl = this.templateLiteral();
    if (tmpl !== null) return tmpl;
    const start = this.pos;
    let s = this.ipNet(() => this.ip6());
    if (s !== null && this.notIdentRest()) return prim('net', s);
    this.pos = start;
    s = this.ipNet(() => this.ip4());
    if (s !== null) return prim('net', s);
    s = this.ip6();
    if (s !== null && this.notIdentRest()) return prim('ip', s);
    this.pos = start;
    s = this.ip4();
    if (s !== null) return prim('ip', s);
    if (this.lit('0x')) {
      this.span(isHexDigit);
      return prim('bytes', this.text(start));
    }
    s = this.duration();
    if (s !== null) return prim('duration', s);
    s = this.time();
    if (s !== null) return prim('time', s);
    s = this.floatString();
    if (s !== null) return prim('float64', s);
    s = this.intString();
    if (s !== null) return prim('int64', s);
    if (this.lit('true')) return prim('bool', 'true');
    if (this.lit('false')) return prim('bool', 'false');
    if (this.lit('null')) return prim('null', '');
    return null;
  }

  /**
   * A quoted string, possibly with `${expr}` interpolations: the parts are
   * joined with `+`, each interpolation cast to string.
   */
  private templateLiteral(): Literal | null {
    const start = this.pos;
    const q = this.code();
    if (!this.lit('"') && !this.lit("'")) return null;
    const parts: Literal[] = [];
    for (;;) {
      const e = this.templateExpr();
      if (e !== null) {
        parts.push(e);
        continue;
      }
      let s = '';
      let k = 0;
      for (;;) {
        const c = this.templateChar(q);
        if (c === null) break;
        s += c;
        k++;
      }
      if (k === 0) break;
      parts.push(prim('string', s));
    }
    if (!this.cls((c) => c === q)) {
      this.pos = start;
      return null;
    }
    if (parts.length === 0) return prim('string', '');
    let e = parts[0];
    for (let i = 1; i < parts.length; i++)
      e = { kind: 'BinaryExpr', op: '+', lhs: e, rhs: parts[i] };
    return e;
  }

  /** `${ expr }` */
  private templateExpr(): Cast | null {
    const start = this.pos;
    if (this.lit('${')) {
      this.sp();
      const e = this.expr();
      if (e !== null) {
        this.sp();
        if (this.lit('}')) return { kind: 'Cast', expr: e, type: STRING_TYPE() };
      }
    }
    this.pos = start;
    return null;
  }

  /** `\${` (a literal "${") or any string character not starting `${`. */
  private templateChar(quote: number): string | null {
    const start = this.pos;
    if (this.lit('\\')) {
      if (this.lit('${')) return '${';
      this.pos = start;
    }
    if (this.not(() => this.lit('${'))) return this.quotedChar(quote);
    return null;
  }
}

function prim(type: Primitive['type'], text: string): Primitive {
  return { kind: 'Primitive', type, text };
}
