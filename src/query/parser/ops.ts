// Pipelines, operators and declarations.
//
// An operation is tried in the reference's order: fork, switch, from (...),
// a parenthesized scope, a named operator, a bare assignment list
// (OpAssignment), an aggregation (Summarize), `search`, a bare search
// expression, a cast, and finally any expression (OpExpr). The first form
// that matches is kept even when what follows then fails to parse, as in
// the reference (so `heads` is `head` followed by an error).

import type {
  AggAssignment,
  Agg,
  Assignment,
  Decl,
  Expr,
  Join,
  Load,
  Op,
  Over,
  Scope,
  Seq,
  Summarize,
  SwitchCase,
  Trunk,
  Type,
} from '../ast';
import { actionPosition, ParseError, syntaxError } from './error';
import { uintValue } from './lexical';
import { SourceParser } from './sources';
import type { Memo } from './cursor';

const THIS = (): Expr => ({ kind: 'ID', name: 'this' });
const ONE = (): Expr => ({ kind: 'Primitive', type: 'int64', text: '1' });

/** A switch case's expression (null for `default`). */
type CaseClause = { expr: Expr | null };

export class OpParser extends SourceParser {
  private readonly operationMemo: Memo<Op> = new Map();

  /** The whole query: a scope with declarations, or a pipeline. */
  protected program(): Seq | null {
    this.sp();
    const scope = this.scope();
    if (scope !== null) {
      this.sp();
      if (this.eof()) return [scope];
    }
    this.pos = 0;
    this.sp();
    const seq = this.seq();
    if (seq !== null) {
      this.sp();
      if (this.eof()) return seq;
    }
    return null;
  }

  // -------------------------------------------------------------------------
  // Scopes and declarations

  /** Decl+ Seq */
  protected scope(): Scope | null {
    const start = this.pos;
    const decls: Decl[] = [];
    for (;;) {
      const d = this.decl();
      if (d === null) break;
      decls.push(d);
    }
    if (decls.length > 0) {
      const body = this.seq();
      if (body !== null) return { kind: 'Scope', decls, body };
    }
    this.pos = start;
    return null;
  }

  /** A const, type or func declaration followed by whitespace. */
  private decl(): Decl | null {
    const start = this.pos;
    const d = this.constDecl() ?? this.funcDecl();
    if (d !== null && this.sp1()) return d;
    this.pos = start;
    return null;
  }

  private constDecl(): Decl | null {
    const start = this.pos;
    if (this.lit('const') && this.sp1()) {
      const name = this.identifierName();
      if (name !== null && this.equals()) {
        const expr = this.expr();
        if (expr !== null) return { kind: 'ConstDecl', name, expr };
      }
    }
    this.pos = start;
    if (this.lit('type') && this.sp1()) {
      const name = this.identifierName() ?? this.quotedString();
      if (name !== null && this.equals()) {
        const type = this.type();
        if (type !== null)
          return {
            kind: 'ConstDecl',
            name,
            expr: { kind: 'TypeValue', value: { kind: 'TypeDef', name, type } },
          };
      }
    }
    this.pos = start;
    return null;
  }

  /** `__ "=" __` */
  private equals(): boolean {
    this.sp();
    if (!this.lit('=')) return false;
    this.sp();
    return true;
  }

  /** `func name(params): ( expr )` */
  private funcDecl(): Decl | null {
    const start = this.pos;
    if (this.lit('func') && this.sp1()) {
      const name = this.identifierName();
      if (name !== null) {
        this.sp();
        if (this.lit('(')) {
          this.sp();
          const params = this.identifierNames();
          if (params !== null) {
            this.sp();
            if (this.lit(')')) {
              this.sp();
              if (this.lit(':')) {
                this.sp();
                if (this.lit('(')) {
                  this.sp();
                  const expr = this.expr();
                  if (expr !== null) {
                    this.sp();
                    if (this.lit(')')) return { kind: 'FuncDecl', name, params, expr };
                  }
                }
              }
            }
          }
        }
      }
    }
    this.pos = start;
    return null;
  }

  // -------------------------------------------------------------------------
  // Pipelines

  /** Operation (| Operation)* */
  protected seq(): Seq | null {
    const first = this.operation();
    if (first === null) return null;
    const ops = [first];
    for (;;) {
      const save = this.pos;
      this.sp();
      if (this.pipe()) {
        this.sp();
        const op = this.operation();
        if (op !== null) {
          ops.push(op);
          continue;
        }
      }
      this.pos = save;
      return ops;
    }
  }

  /** `|` not starting a set `|[` or map `|{`. */
  private pipe(): boolean {
    const start = this.pos;
    if (this.lit('|') && this.not(() => this.lit('{') || this.lit('['))) return true;
    this.pos = start;
    return false;
  }

  /** What may follow an operator: `|`, a leg keyword, `=>`, `)` or the end. */
  private endOfOp(): boolean {
    this.sp();
    return (
      this.pipe() || this.searchKeywordGuard() || this.lit('=>') || this.lit(')') || this.eof()
    );
  }

  private operation(): Op | null {
    return this.memo(this.operationMemo, () => this.operationForms());
  }

  private operationForms(): Op | null {
    const start = this.pos;
    const compound = this.compoundOp();
    if (compound !== null) return compound;
    const op = this.operator();
    if (op !== null) return op;
    const assignments = this.assignments();
    if (assignments !== null && this.and(() => this.endOfOp()))
      return { kind: 'OpAssignment', assignments };
    this.pos = start;
    if (this.not(() => this.function() !== null && this.endOfOp())) {
      const agg = this.aggregation();
      if (agg !== null && this.and(() => this.endOfOp())) return agg;
      this.pos = start;
    }
    if (this.lit('search') && this.sp1()) {
      const expr = this.searchBoolean();
      if (expr !== null) return { kind: 'Search', expr };
    }
    this.pos = start;
    const search = this.searchBoolean();
    if (search !== null) return { kind: 'OpExpr', expr: search };
    const expr = this.cast() ?? this.expr();
    if (expr !== null) return { kind: 'OpExpr', expr };
    return null;
  }

  /** fork ( => ... ), switch [expr] ( case ... ), from ( ... ) and ( decls ... ). */
  private compoundOp(): Op | null {
    const start = this.pos;
    if (this.lit('fork')) {
      this.sp();
      if (this.lit('(')) {
        const paths = this.many(() => this.leg());
        if (paths.length > 0 && this.closeParen()) return { kind: 'Parallel', paths };
      }
      this.pos = start;
    }
    if (this.lit('switch')) {
      if (this.sp1()) {
        const expr = this.expr();
        if (expr !== null && this.sp1() && this.lit('(')) {
          const cases = this.many(() => this.switchLeg());
          if (cases.length > 0 && this.closeParen()) return { kind: 'Switch', expr, cases };
        }
      }
      this.pos = start;
    }
    if (this.lit('switch')) {
      this.sp();
      if (this.lit('(')) {
        const cases = this.many(() => this.switchLeg());
        if (cases.length > 0 && this.closeParen()) return { kind: 'Switch', expr: null, cases };
      }
      this.pos = start;
    }
    if (this.lit('from')) {
      this.sp();
      if (this.lit('(')) {
        const trunks = this.many(() => this.fromLeg());
        if (trunks.length > 0 && this.closeParen()) return { kind: 'From', trunks };
      }
      this.pos = start;
    }
    if (this.lit('(')) {
      this.sp();
      const scope = this.scope();
      if (scope !== null && this.closeParen()) return scope;
      this.pos = start;
    }
    return null;
  }

  /** `__ ")"` */
  private closeParen(): boolean {
    this.sp();
    return this.lit(')');
  }

  /** item*: zero or more. */
  private many<T>(item: () => T | null): T[] {
    const list: T[] = [];
    for (;;) {
      const x = item();
      if (x === null) return list;
      list.push(x);
    }
  }

  /** `__ => __ Seq` */
  private leg(): Seq | null {
    const start = this.pos;
    this.sp();
    if (this.lit('=>')) {
      this.sp();
      const seq = this.seq();
      if (seq !== null) return seq;
    }
    this.pos = start;
    return null;
  }

  private switchLeg(): SwitchCase | null {
    const start = this.pos;
    this.sp();
    const c = this.caseClause();
    if (c !== null) {
      const path = this.leg();
      if (path !== null) return { expr: c.expr, path };
    }
    this.pos = start;
    return null;
  }

  /** `case expr` or `default` (expr null). */
  protected caseClause(): CaseClause | null {
    const start = this.pos;
    if (this.lit('case') && this.sp1()) {
      const expr = this.expr();
      if (expr !== null) return { expr };
    }
    this.pos = start;
    if (this.lit('default')) return { expr: null };
    return null;
  }

  /** `__ source [=> seq]` */
  private fromLeg(): Trunk | null {
    const start = this.pos;
    this.sp();
    const source = this.fromSource();
    if (source === null) {
      this.pos = start;
      return null;
    }
    const save = this.pos;
    this.sp();
    if (this.lit('=>')) {
      this.sp();
      const seq = this.seq();
      if (seq !== null) return { kind: 'Trunk', source, seq };
    }
    this.pos = save;
    return { kind: 'Trunk', source, seq: null };
  }

  // -------------------------------------------------------------------------
  // Named operators

  /** The operators that begin with a keyword, tried in the reference's order. */
  private operator(): Op | null {
    const start = this.pos;
    // Every keyword that does not match fails here, at the operator's start.
    this.term(start, false);
    const src = this.src;
    const c = src.charCodeAt(start);
    const has = (kw: string) => src.startsWith(kw, start);
    let op: Op | null = null;
    switch (c) {
      case 97: // a
        op = (has('assert') ? this.assertOp() : null) ?? (has('anti') ? this.joinOp() : null);
        break;
      case 99: // c
        op = has('cut') ? this.cutOp() : null;
        break;
      case 100: // d
        op = has('drop') ? this.dropOp() : null;
        break;
      case 101: // e
        op = has('explode') ? this.explodeOp() : null;
        break;
      case 102: // f
        op = (has('fuse') ? this.fuseOp() : null) ?? this.fromOp();
        break;
      case 103: // g
        op = this.fromOp();
        break;
      case 104: // h
        op = has('head') ? this.headOp() : null;
        break;
      case 105: // i
        op = has('inner') ? this.joinOp() : null;
        break;
      case 106: // j
        op = has('join') ? this.joinOp() : null;
        break;
      case 108: // l
        op = (has('left') ? this.joinOp() : null) ?? (has('load') ? this.loadOp() : null);
        break;
      case 109: // m
        op = has('merge') ? this.mergeOp() : null;
        break;
      case 111: // o
        op = has('over') ? this.overOp() : null;
        break;
      case 112: // p
        op = (has('put') ? this.putOp() : null) ?? (has('pass') ? this.pass() : null);
        break;
      case 114: // r
        op = (has('rename') ? this.renameOp() : null) ?? (has('right') ? this.joinOp() : null);
        break;
      case 115: // s
        op =
          (has('sort') ? this.sortOp() : null) ??
          (has('shape') ? this.shapeOp() : null) ??
          (has('sample') ? this.sampleOp() : null) ??
          this.sqlOp();
        break;
      case 116: // t
        op = (has('top') ? this.topOp() : null) ?? (has('tail') ? this.tailOp() : null);
        break;
      case 117: // u
        op = has('uniq') ? this.uniqOp() : null;
        break;
      case 119: // w
        op = has('where') ? this.whereOp() : null;
        break;
      case 121: // y
        op = has('yield') ? this.yieldOp() : null;
        break;
      case 83: // S
        op = this.sqlOp();
        break;
    }
    if (op === null) this.pos = start;
    return op;
  }

  /**
   * `assert expr`: yields the value when expr holds, otherwise an error
   * {message: "assertion failed", expr: <expr's text>, on: this}.
   */
  private assertOp(): Op | null {
    const start = this.pos;
    if (this.kw('assert')) {
      const exprStart = this.pos;
      const cond = this.expr();
      if (cond !== null) {
        const text = this.text(exprStart);
        return {
          kind: 'Yield',
          exprs: [
            {
              kind: 'Conditional',
              cond,
              then: THIS(),
              else: {
                kind: 'Call',
                name: 'error',
                args: [
                  {
                    kind: 'RecordExpr',
                    elems: [
                      {
                        kind: 'Field',
                        name: 'message',
                        value: { kind: 'Primitive', type: 'string', text: 'assertion failed' },
                      },
                      {
                        kind: 'Field',
                        name: 'expr',
                        value: { kind: 'Primitive', type: 'string', text },
                      },
                      { kind: 'Field', name: 'on', value: THIS() },
                    ],
                  },
                ],
                where: null,
              },
            },
          ],
        };
      }
    }
    this.pos = start;
    return null;
  }

  /** `sort [-r] [-nulls first|last] [exprs]` */
  private sortOp(): Op | null {
    const start = this.pos;
    if (!(this.lit('sort') && this.notKeyWordChar())) {
      this.pos = start;
      return null;
    }
    const argsPos = this.pos;
    const flags: string[] = [];
    let nullsFirst = false;
    for (;;) {
      const save = this.pos;
      if (this.sp1()) {
        if (this.lit('-r')) {
          flags.push('r');
          continue;
        }
        if (this.lit('-nulls') && this.sp1()) {
          if (this.lit('first')) {
            flags.push('nulls');
            nullsFirst = true;
            continue;
          }
          if (this.lit('last')) {
            flags.push('nulls');
            nullsFirst = false;
            continue;
          }
        }
      }
      this.pos = save;
      break;
    }
    let args: Expr[] = [];
    const save = this.pos;
    const list = this.sp1() ? this.exprs() : null;
    if (list !== null) args = list;
    else this.pos = save;
    const dup = flags.find((f, i) => flags.indexOf(f) !== i);
    if (dup !== undefined) throw this.duplicateArgument(argsPos, dup);
    return { kind: 'Sort', args, order: flags.includes('r') ? 'desc' : 'asc', nullsFirst };
  }

  /**
   * The reference rejects a repeated sort flag with this two-part error
   * (its action error and the failure that follows it), not with the
   * usual "error parsing Zed" message.
   */
  private duplicateArgument(argsPos: number, flag: string): ParseError {
    const msg =
      `${actionPosition(this.src, argsPos)}: rule SortArgs: Duplicate argument -${flag}\n` +
      `${actionPosition(this.src, this.pos)}: rule SortOp: interface conversion: ` +
      'interface {} is nil, not map[string]interface {}';
    const e = syntaxError(this.src, argsPos);
    return new ParseError(msg, e.offset, e.line, e.column);
  }

  /** `top [n] [-flush] [fields]` */
  private topOp(): Op | null {
    const start = this.pos;
    if (!(this.lit('top') && this.notKeyWordChar())) {
      this.pos = start;
      return null;
    }
    let limit = 0;
    let save = this.pos;
    if (this.sp1()) {
      const n = this.uintString();
      if (n !== null) limit = uintValue(n) ?? 0;
      else this.pos = save;
    } else this.pos = save;
    let flush = false;
    save = this.pos;
    if (this.sp1() && this.lit('-flush')) flush = true;
    else this.pos = save;
    let args: Expr[] = [];
    save = this.pos;
    const fields = this.sp1() ? this.fieldExprs() : null;
    if (fields !== null) args = fields;
    else this.pos = save;
    return { kind: 'Top', limit, args, flush };
  }

  private cutOp(): Op | null {
    const args = this.after('cut', () => this.flexAssignments());
    return args === null ? null : { kind: 'Cut', args };
  }

  private dropOp(): Op | null {
    const args = this.after('drop', () => this.fieldExprs());
    return args === null ? null : { kind: 'Drop', args };
  }

  /** `head [expr]` */
  private headOp(): Op | null {
    const count = this.countArg('head');
    return count === null ? null : { kind: 'Head', count };
  }

  /** `tail [expr]` */
  private tailOp(): Op | null {
    const count = this.countArg('tail');
    return count === null ? null : { kind: 'Tail', count };
  }

  /** After head/tail: `_ !EndOfOp expr`, or nothing (1). */
  private countArg(word: string): Expr | null {
    const start = this.pos;
    if (this.kw(word) && this.not(() => this.endOfOp())) {
      const count = this.expr();
      if (count !== null) return count;
    }
    this.pos = start;
    return this.lit(word) ? ONE() : null;
  }

  private whereOp(): Op | null {
    const expr = this.after('where', () => this.expr());
    return expr === null ? null : { kind: 'Where', expr };
  }

  private uniqOp(): Op | null {
    const start = this.pos;
    if (this.kw('uniq') && this.lit('-c')) return { kind: 'Uniq', cflag: true };
    this.pos = start;
    return this.lit('uniq') ? { kind: 'Uniq', cflag: false } : null;
  }

  private putOp(): Op | null {
    const args = this.after('put', () => this.assignments());
    return args === null ? null : { kind: 'Put', args };
  }

  private renameOp(): Op | null {
    const args = this.after('rename', () => this.assignments());
    return args === null ? null : { kind: 'Rename', args };
  }

  /** `fuse` (not `fuse(`, the aggregate) */
  private fuseOp(): Op | null {
    return this.bareWord('fuse') ? { kind: 'Fuse' } : null;
  }

  /** `shape` (not `shape(`, the function) */
  private shapeOp(): Op | null {
    return this.bareWord('shape') ? { kind: 'Shape' } : null;
  }

  /** word !(__ "(") &EOKW */
  private bareWord(word: string): boolean {
    const start = this.pos;
    if (
      this.lit(word) &&
      this.not(() => {
        this.sp();
        return this.lit('(');
      }) &&
      this.notKeyWordChar()
    )
      return true;
    this.pos = start;
    return false;
  }

  /** `[anti|inner|left|right] join [( seq )] on key[=key] [assignments]` */
  private joinOp(): Op | null {
    const start = this.pos;
    let style: Join['style'] = 'inner';
    for (const st of ['anti', 'inner', 'left', 'right'] as const) {
      if (this.lit(st) && this.sp1()) {
        style = st;
        break;
      }
      this.pos = start;
    }
    if (!this.lit('join')) {
      this.pos = start;
      return null;
    }
    const rightInput = this.joinRightInput();
    if (rightInput !== undefined && this.litI('on') && this.sp1()) {
      const leftKey = this.joinKey();
      if (leftKey !== null) {
        let rightKey = leftKey;
        const save = this.pos;
        this.sp();
        let k: Expr | null = null;
        if (this.lit('=')) {
          this.sp();
          k = this.joinKey();
        }
        if (k !== null) rightKey = k;
        else this.pos = save;
        let args: Assignment[] = [];
        const save2 = this.pos;
        const list = this.sp1() ? this.flexAssignments() : null;
        if (list !== null) args = list;
        else this.pos = save2;
        return { kind: 'Join', style, rightInput, leftKey, rightKey, args };
      }
    }
    this.pos = start;
    return null;
  }

  /** `__ ( seq ) __` (a Seq) or `_` (null); undefined when neither. */
  private joinRightInput(): Seq | null | undefined {
    const start = this.pos;
    this.sp();
    if (this.lit('(')) {
      this.sp();
      const seq = this.seq();
      if (seq !== null && this.closeParen()) {
        this.sp();
        return seq;
      }
    }
    this.pos = start;
    return this.sp1() ? null : undefined;
  }

  /** `sample [lval]` */
  private sampleOp(): Op | null {
    const start = this.pos;
    if (!(this.lit('sample') && this.notKeyWordChar())) {
      this.pos = start;
      return null;
    }
    const save = this.pos;
    const lval = this.sp1() ? this.lval() : null;
    if (lval !== null) return { kind: 'Sample', expr: lval };
    this.pos = save;
    return { kind: 'Sample', expr: THIS() };
  }

  /** `explode exprs by type [as lval]` */
  private explodeOp(): Op | null {
    const start = this.pos;
    if (this.kw('explode')) {
      const args = this.exprs();
      if (args !== null && this.sp1() && this.litI('by') && this.sp1()) {
        const type: Type | null = this.type();
        if (type !== null) {
          let as: Expr | null = null;
          const save = this.pos;
          if (this.sp1() && this.litI('as') && this.sp1()) as = this.lval();
          if (as === null) this.pos = save;
          return { kind: 'Explode', args, type, as };
        }
      }
    }
    this.pos = start;
    return null;
  }

  private mergeOp(): Op | null {
    const expr = this.after('merge', () => this.expr());
    return expr === null ? null : { kind: 'Merge', expr };
  }

  /** `over exprs [with locals] [=> ( [decls] seq )]` */
  private overOp(): Over | null {
    const start = this.pos;
    if (this.kw('over')) {
      const exprs = this.exprs();
      if (exprs !== null) {
        const locals = this.locals() ?? [];
        return { kind: 'Over', exprs, locals, body: this.lateral() };
      }
    }
    this.pos = start;
    return null;
  }

  /** `__ => __ ( __ Scope|Seq __ )` */
  private lateral(): Seq | null {
    const start = this.pos;
    this.sp();
    if (this.lit('=>')) {
      this.sp();
      if (this.lit('(')) {
        this.sp();
        const open = this.pos;
        const scope = this.scope();
        if (scope !== null && this.closeParen()) return [scope];
        this.pos = open;
        const seq = this.seq();
        if (seq !== null && this.closeParen()) return seq;
      }
    }
    this.pos = start;
    return null;
  }

  private yieldOp(): Op | null {
    const exprs = this.after('yield', () => this.exprs());
    return exprs === null ? null : { kind: 'Yield', exprs };
  }

  /** `load pool[@branch] [author "a"] [message "m"] [meta "x"]` */
  private loadOp(): Load | null {
    const start = this.pos;
    if (this.kw('load')) {
      const pool = this.poolNameString();
      if (pool !== null) {
        let branch: string | null = null;
        const save = this.pos;
        if (this.lit('@')) branch = this.poolIdentifier() ?? this.quotedString();
        if (branch === null) this.pos = save;
        return {
          kind: 'Load',
          pool,
          branch,
          author: this.stringArg('author'),
          message: this.stringArg('message'),
          meta: this.stringArg('meta'),
        };
      }
    }
    this.pos = start;
    return null;
  }

  /** `_ word _ "string"` */
  private stringArg(word: string): string | null {
    const start = this.pos;
    const s = this.sp1() ? this.after(word, () => this.quotedString()) : null;
    if (s === null) this.pos = start;
    return s;
  }

  // -------------------------------------------------------------------------
  // Aggregations

  /** `[summarize] by keys [limit]` or `[summarize] aggs [by keys] [limit]` */
  private aggregation(): Summarize | null {
    const start = this.pos;
    this.kw('summarize');
    const keys = this.groupByKeys();
    if (keys !== null) return { kind: 'Summarize', keys, aggs: [], limit: this.limitArg() };
    this.pos = start;
    this.kw('summarize');
    const aggs = this.commaList(() => this.aggAssignment());
    if (aggs !== null) {
      const save = this.pos;
      let byKeys: Assignment[] | null = null;
      if (this.sp1()) byKeys = this.groupByKeys();
      if (byKeys === null) this.pos = save;
      return { kind: 'Summarize', keys: byKeys ?? [], aggs, limit: this.limitArg() };
    }
    this.pos = start;
    return null;
  }

  /** `by keys` */
  private groupByKeys(): Assignment[] | null {
    const start = this.pos;
    if (this.byToken() && this.sp1()) {
      const keys = this.flexAssignments();
      if (keys !== null) return keys;
    }
    this.pos = start;
    return null;
  }

  /** `_ with _ -limit _ N`, or 0. */
  private limitArg(): number {
    const start = this.pos;
    if (this.sp1() && this.kw('with') && this.kw('-limit')) {
      const n = this.uintString();
      if (n !== null) return uintValue(n) ?? 0;
    }
    this.pos = start;
    return 0;
  }

  /** `lval := agg` or `agg` */
  private aggAssignment(): AggAssignment | null {
    const a = this.separated(
      () => this.lval(),
      ':=',
      () => this.agg(),
    );
    if (a !== null) return { kind: 'Assignment', lhs: a[0], rhs: a[1] };
    const rhs = this.agg();
    return rhs === null ? null : { kind: 'Assignment', lhs: null, rhs };
  }

  /** `name([expr]) [where pred]` not followed by `.` */
  private agg(): Agg | null {
    const start = this.pos;
    if (this.not(() => this.funcGuard())) {
      const name = this.aggName();
      if (name !== null) {
        this.sp();
        if (this.lit('(')) {
          this.sp();
          const expr = this.overExpr() ?? this.expr();
          this.sp();
          if (
            this.lit(')') &&
            this.not(() => {
              this.sp();
              return this.lit('.');
            })
          )
            return { kind: 'Agg', name, expr, where: this.whereClause() };
        }
      }
    }
    this.pos = start;
    return null;
  }

  /** An identifier, or `and`/`or` (aggregates of those names). */
  private aggName(): string | null {
    const id = this.identifierName();
    if (id !== null) return id;
    if (this.andToken()) return 'and';
    if (this.orToken()) return 'or';
    return null;
  }
}
