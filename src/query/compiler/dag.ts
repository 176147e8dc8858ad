// The dataflow graph the semantic pass produces from the syntax tree and
// the optimizer rewrites (the reference's compiler/ast/dag). Identifiers
// are resolved here: a name is a field path of `this`, a constant (folded
// to a Literal), a lateral-scope variable or a function parameter; implied
// operators are decided; literals are values of the query's type context.

import { Type } from '../../zed/types';
import { Value } from '../../zed/value';
import type { DataId, KeyRange, PoolHandle, ScanEnd } from '../data/source';

// ---------------------------------------------------------------------------
// Expressions

export interface Literal {
  kind: 'Literal';
  value: Value;
}

/** A field path of `this` (empty: `this` itself). */
export interface This {
  kind: 'This';
  path: string[];
}

/** A lateral-scope variable (`over ... with name=...`), by slot. */
export interface Var {
  kind: 'Var';
  name: string;
  slot: number;
}

/** A user function. */
export interface Func {
  kind: 'Func';
  name: string;
  params: string[];
  expr: Expr | null;
}

/** A parameter of a user function. */
export interface Param {
  kind: 'Param';
  fn: Func;
  name: string;
  index: number;
}

export interface Dot {
  kind: 'Dot';
  lhs: Expr;
  rhs: string;
}

export interface Unary {
  kind: 'Unary';
  op: '!' | '-';
  operand: Expr;
}

export type BinaryOp =
  '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'and' | 'or' | '[';

export interface Binary {
  kind: 'Binary';
  op: BinaryOp;
  lhs: Expr;
  rhs: Expr;
}

/** `lhs[from:to]`. */
export interface Slice {
  kind: 'Slice';
  lhs: Expr;
  from: Expr | null;
  to: Expr | null;
}

export interface Conditional {
  kind: 'Conditional';
  cond: Expr;
  then: Expr;
  else: Expr;
}

/** A call of a built-in function. */
export interface Call {
  kind: 'Call';
  name: string;
  args: Expr[];
  /**
   * For a function that reads a field of `this` itself (every: ts): the
   * field is args[0], given (vectorize.ts evaluates the call on the
   * field's column, `this` being the field's value).
   */
  given?: boolean;
}

/** A call of a user function. */
export interface UserCall {
  kind: 'UserCall';
  fn: Func;
  args: Expr[];
}

/** An aggregate call (in summarize, or a running aggregate in an expression). */
export interface Agg {
  kind: 'Agg';
  name: string;
  expr: Expr | null;
  where: Expr | null;
}

/** A search for a literal (keyword or value) inside expr. */
export interface Search {
  kind: 'Search';
  text: string;
  value: Value;
  expr: Expr;
}

/** A glob or regexp search inside expr (pattern is an RE2 regexp). */
export interface RegexpSearch {
  kind: 'RegexpSearch';
  pattern: string;
  expr: Expr;
}

/** `expr ~ /pattern/`. */
export interface RegexpMatch {
  kind: 'RegexpMatch';
  pattern: string;
  expr: Expr;
}

export type RecordElem =
  { kind: 'Field'; name: string; value: Expr } | { kind: 'Spread'; expr: Expr };

export interface RecordExpr {
  kind: 'RecordExpr';
  elems: RecordElem[];
}

export interface VectorElem {
  spread: boolean;
  expr: Expr;
}

export interface ArrayExpr {
  kind: 'ArrayExpr';
  elems: VectorElem[];
}

export interface SetExpr {
  kind: 'SetExpr';
  elems: VectorElem[];
}

export interface MapExpr {
  kind: 'MapExpr';
  entries: { key: Expr; value: Expr }[];
}

export interface Def {
  name: string;
  slot: number;
  expr: Expr;
}

/** `(over exprs with defs | body)`. */
export interface OverExpr {
  kind: 'OverExpr';
  defs: Def[];
  exprs: Expr[];
  body: Seq;
}

export type Expr =
  | Literal
  | This
  | Var
  | Param
  | Dot
  | Unary
  | Binary
  | Slice
  | Conditional
  | Call
  | UserCall
  | Agg
  | Search
  | RegexpSearch
  | RegexpMatch
  | RecordExpr
  | ArrayExpr
  | SetExpr
  | MapExpr
  | OverExpr;

/** `lhs := rhs` with lhs a field path. */
export interface Assignment {
  lhs: string[];
  rhs: Expr;
}

// ---------------------------------------------------------------------------
// Operators

export type Seq = Op[];

export interface Filter {
  kind: 'Filter';
  expr: Expr;
}
export interface Yield {
  kind: 'Yield';
  exprs: Expr[];
}
export interface Put {
  kind: 'Put';
  args: Assignment[];
}
export interface Cut {
  kind: 'Cut';
  args: Assignment[];
}
export interface Drop {
  kind: 'Drop';
  args: string[][];
}
export interface Rename {
  kind: 'Rename';
  args: { dst: string[]; src: string[] }[];
}
export interface Head {
  kind: 'Head';
  count: number;
}
export interface Tail {
  kind: 'Tail';
  count: number;
}
export interface Pass {
  kind: 'Pass';
}
export interface Sort {
  kind: 'Sort';
  args: Expr[];
  order: 'asc' | 'desc';
  nullsFirst: boolean;
}
export interface Top {
  kind: 'Top';
  args: Expr[];
  limit: number;
  flush: boolean;
}
export interface Uniq {
  kind: 'Uniq';
  cflag: boolean;
}
export interface Summarize {
  kind: 'Summarize';
  keys: Assignment[];
  aggs: { lhs: string[]; agg: Agg }[];
  limit: number;
  /** Input sorted by the first key in this direction (set by the optimizer). */
  inputSortDir: 0 | 1 | -1;
  /** With inputSortDir: the pool scan whose order it is, and its key range (optimizer). */
  inputScan?: { pool: PoolHandle; commit: DataId; range: KeyRange | null };
}
export interface Fuse {
  kind: 'Fuse';
}
export interface Shape {
  kind: 'Shape';
}
export interface Join {
  kind: 'Join';
  style: 'inner' | 'left' | 'right' | 'anti';
  leftKey: Expr;
  rightKey: Expr;
  args: Assignment[];
}
export interface Merge {
  kind: 'Merge';
  expr: Expr;
  order: 'asc' | 'desc';
}
export interface Explode {
  kind: 'Explode';
  args: Expr[];
  type: Type;
  as: string;
}
export interface Over {
  kind: 'Over';
  defs: Def[];
  exprs: Expr[];
  body: Seq | null;
}
export interface Fork {
  kind: 'Fork';
  paths: Seq[];
}
export interface Switch {
  kind: 'Switch';
  expr: Expr | null;
  cases: { expr: Expr | null; path: Seq }[];
}
/** Merges parallel inputs in arrival order. */
export interface Combine {
  kind: 'Combine';
}
export interface Load {
  kind: 'Load';
  pool: PoolHandle;
  branch: string;
  author: string | null;
  message: string | null;
  meta: string | null;
}

// Sources

export interface PoolScan {
  kind: 'PoolScan';
  pool: PoolHandle;
  commit: DataId;
  /** A filter lifted from the first downstream operator (optimizer). */
  filter: Expr | null;
  /** Pool-key range implied by filter (optimizer). */
  range: KeyRange | null;
  /** The only values the query keeps, when it has no filter (optimizer: a sort of the key and a head, a tail). */
  end?: ScanEnd;
  /** A cut of plain fields after the filter (optimizer). */
  project?: Assignment[];
  /**
   * The top-level fields the query reads of the pool's values, or null
   * when it may read whole values (optimizer, demand.ts).
   */
  fields?: string[] | null;
  /**
   * With fields null: the top-level fields filter reads, when it reads
   * nothing else (optimizer); the scan may test the filter on them first.
   */
  matchFields?: string[] | null;
}
export interface LakeMetaScan {
  kind: 'LakeMetaScan';
  meta: string;
}
export interface PoolMetaScan {
  kind: 'PoolMetaScan';
  pool: PoolHandle;
  meta: string;
}
export interface CommitMetaScan {
  kind: 'CommitMetaScan';
  pool: PoolHandle;
  commit: DataId;
  meta: string;
  tap: boolean;
  /**
   * With tap, the filter lifted from downstream (optimizer): objects whose
   * pool-key span it cannot match are left out of `:objects`.
   */
  keyFilter?: Expr | null;
}
export interface SortKey {
  keys: string[][];
  order: 'asc' | 'desc';
}
export interface FileScan {
  kind: 'FileScan';
  path: string;
  format: string | null;
  sortKey: SortKey | null;
  filter: Expr | null;
  project?: Assignment[];
}
export interface HTTPScan {
  kind: 'HTTPScan';
  url: string;
  format: string | null;
  sortKey: SortKey | null;
}
/** An input supplied by the caller (zq's files, a test's values), by index. */
export interface Reader {
  kind: 'Reader';
  index: number;
  filter: Expr | null;
  project?: Assignment[];
}

export type Source =
  PoolScan | LakeMetaScan | PoolMetaScan | CommitMetaScan | FileScan | HTTPScan | Reader;

export type Op =
  | Filter
  | Yield
  | Put
  | Cut
  | Drop
  | Rename
  | Head
  | Tail
  | Pass
  | Sort
  | Top
  | Uniq
  | Summarize
  | Fuse
  | Shape
  | Join
  | Merge
  | Explode
  | Over
  | Fork
  | Switch
  | Combine
  | Load
  | Source;

export function isSource(op: Op): op is Source {
  switch (op.kind) {
    case 'PoolScan':
    case 'LakeMetaScan':
    case 'PoolMetaScan':
    case 'CommitMetaScan':
    case 'FileScan':
    case 'HTTPScan':
    case 'Reader':
      return true;
  }
  return false;
}

export function lit(value: Value): Literal {
  return { kind: 'Literal', value };
}

export function thisPath(path: string[]): This {
  return { kind: 'This', path };
}

export function binary(op: BinaryOp, lhs: Expr, rhs: Expr): Binary {
  return { kind: 'Binary', op, lhs, rhs };
}

/**
 * A copy of e in which each node that swap gives a replacement for is
 * replaced (swap returns undefined to copy the node and go on into it).
 * Values (literals) and types are kept as they are.
 */
export function mapExpr(e: Expr, swap: (node: Record<string, unknown>) => unknown): Expr {
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (x === null || typeof x !== 'object') return x;
    const o = x as Record<string, unknown>;
    const to = swap(o);
    if (to !== undefined) return to;
    if (o.kind === 'Literal' || Object.getPrototypeOf(o) !== Object.prototype) return x;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) out[k] = walk(v);
    return out;
  };
  return walk(e) as Expr;
}
