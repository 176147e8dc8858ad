// The syntax tree of a Zed query, as the parser (src/query/parser) builds it.
//
// Node kinds and their meaning follow the reference AST (Zed v1.8,
// compiler/ast) one to one, so the semantic pass can treat each kind as the
// reference does. Differences are of form only: field names are camelCase,
// lists that the reference leaves null when absent are empty arrays here, and
// shapes the reference overloads (e.g. BinaryExpr for `.`, `[` and slices)
// have their own TypeScript types under the same `kind`.
//
// The parser never converts literal text to values: a Primitive keeps its
// source text and primitive type, and the compiler converts it.
//
// Nodes are plain JSON-able objects. Treat the tree as immutable: a node may
// be referenced twice (Join's rightKey defaults to the leftKey node).

/** A parsed query: a sequence of operators (see Seq). */
export type Program = Seq;

/**
 * A pipeline: operators joined by `|`, each feeding the next. A top-level
 * query with declarations is a one-element Seq holding a Scope.
 */
export type Seq = Op[];

// ---------------------------------------------------------------------------
// Declarations

/**
 * `const name = expr`. A `type name = T` declaration is also a ConstDecl
 * whose expr is a TypeValue holding TypeDef{name, T}, as in the reference.
 */
export interface ConstDecl {
  kind: 'ConstDecl';
  name: string;
  expr: Expr;
}

/** `func name(p1, p2): ( expr )`: a user-defined function. */
export interface FuncDecl {
  kind: 'FuncDecl';
  name: string;
  params: string[];
  expr: Expr;
}

export type Decl = ConstDecl | FuncDecl;

// ---------------------------------------------------------------------------
// Operators

/** Declarations and the pipeline they are visible in (top level or `( const ... ops )`). */
export interface Scope {
  kind: 'Scope';
  decls: Decl[];
  body: Seq;
}

/** `fork ( => seq => seq ... )`: every path receives a copy of the input. */
export interface Parallel {
  kind: 'Parallel';
  paths: Seq[];
}

/** One leg of a switch: `case expr => seq`, or `default => seq` (expr null). */
export interface SwitchCase {
  expr: Expr | null;
  path: Seq;
}

/**
 * `switch expr ( case v => seq ... )` routes each value to the first case
 * equal to expr; `switch ( case pred => seq ... )` (expr null) to the first
 * case whose predicate holds.
 */
export interface Switch {
  kind: 'Switch';
  expr: Expr | null;
  cases: SwitchCase[];
}

/** `sort [-r] [-nulls first|last] [exprs]`; args empty means "guess the key". */
export interface Sort {
  kind: 'Sort';
  args: Expr[];
  order: 'asc' | 'desc';
  nullsFirst: boolean;
}

/** `top [N] [-flush] [fields]`; limit 0 means the default. */
export interface Top {
  kind: 'Top';
  limit: number;
  args: Expr[];
  flush: boolean;
}

/** `cut a, b:=c`: keep (and optionally rename/compute) fields. lhs null = name from rhs. */
export interface Cut {
  kind: 'Cut';
  args: Assignment[];
}

/** `drop a, b.c`: remove fields. */
export interface Drop {
  kind: 'Drop';
  args: Expr[];
}

/** `explode exprs by type [as lval]`. */
export interface Explode {
  kind: 'Explode';
  args: Expr[];
  type: Type;
  as: Expr | null;
}

/** `head [expr]`; a bare `head` has count Primitive int64 "1". */
export interface Head {
  kind: 'Head';
  count: Expr;
}

/** `tail [expr]`; a bare `tail` has count Primitive int64 "1". */
export interface Tail {
  kind: 'Tail';
  count: Expr;
}

/** `pass`: copies input to output (also a `from` source meaning "the parent's input"). */
export interface Pass {
  kind: 'Pass';
}

/** `uniq [-c]`. */
export interface Uniq {
  kind: 'Uniq';
  cflag: boolean;
}

/**
 * `[summarize] aggs [by keys] [with -limit N]`, or `[summarize] by keys`.
 * Produced only where the grammar sees aggregate-call syntax; a bare
 * assignment list or call is OpAssignment/OpExpr for the semantic pass.
 */
export interface Summarize {
  kind: 'Summarize';
  limit: number;
  keys: Assignment[];
  aggs: AggAssignment[];
}

/** `put a:=x, b:=y`. */
export interface Put {
  kind: 'Put';
  args: Assignment[];
}

/** `merge expr`: merges parallel inputs in order of expr. */
export interface Merge {
  kind: 'Merge';
  expr: Expr;
}

/** `over exprs [with a=x, b] [=> ( seq )]`: traverse values, optionally through a lateral subquery. */
export interface Over {
  kind: 'Over';
  exprs: Expr[];
  locals: Def[];
  body: Seq | null;
}

/** `search expr`: an explicit search filter. */
export interface Search {
  kind: 'Search';
  expr: Expr;
}

/** `where expr`. */
export interface Where {
  kind: 'Where';
  expr: Expr;
}

/** `yield exprs`; also the desugaring of `assert expr`. */
export interface Yield {
  kind: 'Yield';
  exprs: Expr[];
}

/**
 * A bare list of `lhs:=rhs` assignments used as an operator: a put, or a
 * summarize when the rhs are aggregate calls. The semantic pass decides.
 */
export interface OpAssignment {
  kind: 'OpAssignment';
  assignments: Assignment[];
}

/**
 * A bare expression used as an operator: a search/filter, an aggregation
 * (a call to an aggregate function), or a yield. The semantic pass decides.
 */
export interface OpExpr {
  kind: 'OpExpr';
  expr: Expr;
}

/** `rename new:=old, ...`. */
export interface Rename {
  kind: 'Rename';
  args: Assignment[];
}

/** `fuse`. */
export interface Fuse {
  kind: 'Fuse';
}

/** `shape`. */
export interface Shape {
  kind: 'Shape';
}

/**
 * `[inner|left|right|anti] join [( seq )] on lkey[=rkey] [assignments]`.
 * rightInput null: the right side comes from the parallel parent.
 * rightKey is the leftKey node itself when no `=rkey` is given.
 */
export interface Join {
  kind: 'Join';
  style: 'inner' | 'left' | 'right' | 'anti';
  rightInput: Seq | null;
  leftKey: Expr;
  rightKey: Expr;
  args: Assignment[];
}

/** `sample [lval]`; a bare `sample` has expr ID this. */
export interface Sample {
  kind: 'Sample';
  expr: Expr;
}

/** `from ...`, `file ...`, `get ...`: one or many sources (trunks). */
export interface From {
  kind: 'From';
  trunks: Trunk[];
}

/** `load pool[@branch] [author "a"] [message "m"] [meta "x"]`. */
export interface Load {
  kind: 'Load';
  pool: string;
  branch: string | null;
  author: string | null;
  message: string | null;
  meta: string | null;
}

/** The FROM clause of SQL: `FROM table [[AS] alias]`. */
export interface SQLFrom {
  table: Expr;
  alias: Expr | null;
}

/** `[style] JOIN table [alias] ON lkey = rkey`. */
export interface SQLJoin {
  table: Expr;
  style: 'inner' | 'left' | 'right' | 'anti';
  leftKey: Expr;
  rightKey: Expr;
  alias: Expr | null;
}

/** `ORDER BY keys [ASC|DESC]`. */
export interface SQLOrderBy {
  kind: 'SQLOrderBy';
  keys: Expr[];
  order: 'asc' | 'desc';
}

/**
 * `SELECT ... [FROM] [JOIN...] [WHERE] [GROUP BY] [HAVING] [ORDER BY] [LIMIT]`.
 * select null means `SELECT *`; from null means no FROM or `FROM *`;
 * limit 0 means no limit. Keywords are case-insensitive.
 */
export interface SQLExpr {
  kind: 'SQLExpr';
  select: Assignment[] | null;
  from: SQLFrom | null;
  joins: SQLJoin[];
  where: Expr | null;
  groupBy: Expr[];
  having: Expr | null;
  orderBy: SQLOrderBy | null;
  limit: number;
}

export type Op =
  | Scope
  | Parallel
  | Switch
  | Sort
  | Top
  | Cut
  | Drop
  | Explode
  | Head
  | Tail
  | Pass
  | Uniq
  | Summarize
  | Put
  | Merge
  | Over
  | Search
  | Where
  | Yield
  | OpAssignment
  | OpExpr
  | Rename
  | Fuse
  | Shape
  | Join
  | Sample
  | From
  | Load
  | SQLExpr;

// ---------------------------------------------------------------------------
// Sources (of `from`)

/** The ordering a file/URL source declares with `order k1,k2[:asc|:desc]`. */
export interface SortKey {
  kind: 'SortKey';
  keys: Expr[];
  order: 'asc' | 'desc';
}

/** `file path [format f] [order keys]`. */
export interface File {
  kind: 'File';
  path: string;
  format: string | null;
  sortKey: SortKey | null;
}

/** `get http(s)://... [format f] [order keys]`; url is the source text as written. */
export interface HTTP {
  kind: 'HTTP';
  url: string;
  format: string | null;
  sortKey: SortKey | null;
}

/**
 * Which pool(s) to read: pool is a name (String), a Glob or a Regexp, or
 * null for a lake meta-query (`from :pools`). commit is the text after `@`
 * (a branch name or commit ID); meta the text after `:` (e.g. objects).
 */
export interface PoolSpec {
  pool: Pattern | null;
  commit: string | null;
  meta: string | null;
  tap: boolean;
}

/** `from spec [at ID]` or, inside `from ( ... )`, `pool spec [at ID]`. */
export interface Pool {
  kind: 'Pool';
  spec: PoolSpec;
  at: string | null;
}

export type Source = Pool | File | HTTP | Pass;

/** One source of a From, with its own pipeline (`=> seq`) or none (null). */
export interface Trunk {
  kind: 'Trunk';
  source: Source;
  seq: Seq | null;
}

// ---------------------------------------------------------------------------
// Assignments and definitions

/** `lhs:=rhs`; lhs null where the grammar lets it be implied (cut, by keys, join, SQL). */
export interface Assignment {
  kind: 'Assignment';
  lhs: Expr | null;
  rhs: Expr;
}

/** An aggregation in a Summarize: `[lhs:=]agg(...)`. */
export interface AggAssignment {
  kind: 'Assignment';
  lhs: Expr | null;
  rhs: Agg;
}

/** An aggregate call `name([expr]) [where pred]`; expr null for e.g. count(). */
export interface Agg {
  kind: 'Agg';
  name: string;
  expr: Expr | null;
  where: Expr | null;
}

/** A local binding of `over ... with name[=expr]` (expr is ID name when omitted). */
export interface Def {
  name: string;
  expr: Expr;
}

// ---------------------------------------------------------------------------
// Expressions

/** An identifier: a field of `this`, `this` itself, or a const/param/local name. */
export interface ID {
  kind: 'ID';
  name: string;
}

/**
 * A search term: a bare literal or keyword in a search expression (e.g.
 * `foo`, `10.0.0.1`, `"a b"`), which matches values containing it. text is
 * the source text; value the literal (a Primitive string for keywords).
 */
export interface Term {
  kind: 'Term';
  text: string;
  value: Literal;
}

/** `!x` (logical not) or `-x` (negation). */
export interface UnaryExpr {
  kind: 'UnaryExpr';
  op: '!' | '-';
  operand: Expr;
}

/** Operators of BinaryExpr proper (`~` has a Regexp rhs). */
export type BinaryOp =
  '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | '~' | 'and' | 'or';

/** Arithmetic, comparison, containment (`in`), match (`~`) and logic. */
export interface BinaryExpr {
  kind: 'BinaryExpr';
  op: BinaryOp;
  lhs: Expr;
  rhs: Expr;
}

/** Field access `lhs.name` (reference kind BinaryExpr, op "."). */
export interface DotExpr {
  kind: 'BinaryExpr';
  op: '.';
  lhs: Expr;
  rhs: ID;
}

/** Indexing `lhs[rhs]`, or slicing when rhs is a SliceRange (reference kind BinaryExpr, op "["). */
export interface IndexExpr {
  kind: 'BinaryExpr';
  op: '[';
  lhs: Expr;
  rhs: Expr | SliceRange;
}

/** The `from:to` of a slice (reference kind BinaryExpr, op ":"); either bound may be absent. */
export interface SliceRange {
  kind: 'BinaryExpr';
  op: ':';
  lhs: Expr | null;
  rhs: Expr | null;
}

/** `cond ? then : else`. */
export interface Conditional {
  kind: 'Conditional';
  cond: Expr;
  then: Expr;
  else: Expr;
}

/**
 * A call `name(args) [where pred]`: a function, a user function, or (when
 * name is an aggregate) an aggregation; the semantic pass decides. The
 * pattern argument of regexp()/regexp_replace() written as /re/ is a
 * Primitive string holding the pattern.
 */
export interface Call {
  kind: 'Call';
  name: string;
  args: Expr[];
  where: Expr | null;
}

/** `type(expr)` / `<type>(expr)`; also each `${expr}` of a string template (to string). */
export interface Cast {
  kind: 'Cast';
  expr: Expr;
  type: TypeValue;
}

/** `grep(pattern[, expr])`; expr is ID this when omitted. */
export interface Grep {
  kind: 'Grep';
  pattern: Pattern;
  expr: Expr;
}

/** A glob pattern (`foo*`), as a search term or pool pattern; `\*` stays escaped. */
export interface Glob {
  kind: 'Glob';
  pattern: string;
}

/** A regular expression `/re/`; pattern is the text between the slashes. */
export interface Regexp {
  kind: 'Regexp';
  pattern: string;
}

/** A plain string pattern (a quoted grep pattern or a pool name). */
export interface StringPattern {
  kind: 'String';
  text: string;
}

export type Pattern = Glob | Regexp | StringPattern;

/** `name: value` in a record expression. */
export interface Field {
  kind: 'Field';
  name: string;
  value: Expr;
}

/** `...expr` in a record, array or set expression. */
export interface Spread {
  kind: 'Spread';
  expr: Expr;
}

/** A record elem: a field, a bare identifier (shorthand for id:id), or a spread. */
export type RecordElem = Field | ID | Spread;

/** `{a: 1, b, ...r}`. */
export interface RecordExpr {
  kind: 'RecordExpr';
  elems: RecordElem[];
}

/** An element value of an array or set expression. */
export interface VectorValue {
  kind: 'VectorValue';
  expr: Expr;
}

export type VectorElem = VectorValue | Spread;

/** `[1, 2, ...a]`. */
export interface ArrayExpr {
  kind: 'ArrayExpr';
  elems: VectorElem[];
}

/** `|[1, 2]|`. */
export interface SetExpr {
  kind: 'SetExpr';
  elems: VectorElem[];
}

export interface MapEntry {
  key: Expr;
  value: Expr;
}

/** `|{k: v, ...}|`. */
export interface MapExpr {
  kind: 'MapExpr';
  entries: MapEntry[];
}

/** `(over exprs [with locals] | seq)`: a lateral subquery as an expression. */
export interface OverExpr {
  kind: 'OverExpr';
  locals: Def[];
  exprs: Expr[];
  body: Seq;
}

/** The primitive type of a literal as the grammar assigns it. */
export type LiteralType =
  'bool' | 'string' | 'int64' | 'float64' | 'ip' | 'net' | 'time' | 'duration' | 'bytes' | 'null';

/**
 * A literal of a primitive type, as source text: numbers as written
 * (`-1`, `1.`, `1e3`, `NaN`, `-Inf`), ip/net/time/duration as written,
 * bytes as `0x...`, strings decoded (escapes resolved), null as "".
 */
export interface Primitive {
  kind: 'Primitive';
  type: LiteralType;
  text: string;
}

/** A type value `<T>` (or the type of a cast). */
export interface TypeValue {
  kind: 'TypeValue';
  value: Type;
}

/** What a Literal can produce: a primitive, a type value, or a string template's `+`/Cast chain. */
export type Literal = Primitive | TypeValue | BinaryExpr | Cast;

export type Expr =
  | ID
  | Term
  | UnaryExpr
  | BinaryExpr
  | DotExpr
  | IndexExpr
  | Conditional
  | Call
  | Cast
  | Grep
  | Glob
  | Regexp
  | RecordExpr
  | ArrayExpr
  | SetExpr
  | MapExpr
  | OverExpr
  | Primitive
  | TypeValue;

// ---------------------------------------------------------------------------
// Types (inside `<...>`, casts, explode, type declarations)

/** Names of the primitive types the grammar knows. */
export type PrimitiveTypeName =
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float16'
  | 'float32'
  | 'float64'
  | 'bool'
  | 'string'
  | 'duration'
  | 'time'
  | 'bytes'
  | 'ip'
  | 'net'
  | 'type'
  | 'null';

/** A primitive type such as int64. */
export interface TypePrimitive {
  kind: 'TypePrimitive';
  name: PrimitiveTypeName;
}

export interface TypeField {
  name: string;
  type: Type;
}

/** `{a: T, b: U}` (fields may be empty). */
export interface TypeRecord {
  kind: 'TypeRecord';
  fields: TypeField[];
}

/** `[T]`. */
export interface TypeArray {
  kind: 'TypeArray';
  type: Type;
}

/** `|[T]|`. */
export interface TypeSet {
  kind: 'TypeSet';
  type: Type;
}

/** `|{K: V}|`. */
export interface TypeMap {
  kind: 'TypeMap';
  keyType: Type;
  valType: Type;
}

/** `(T, U, ...)`: at least two types. */
export interface TypeUnion {
  kind: 'TypeUnion';
  types: Type[];
}

/** A reference to a named type (identifier or quoted name). */
export interface TypeName {
  kind: 'TypeName';
  name: string;
}

/** `name = T`: defines a named type. */
export interface TypeDef {
  kind: 'TypeDef';
  name: string;
  type: Type;
}

/**
 * A type. A nested `<T>` yields a TypeValue here, as in the reference
 * grammar (the compiler decides what it means). Enum and error types have
 * no syntax in the v1.8 query grammar.
 */
export type Type =
  | TypePrimitive
  | TypeRecord
  | TypeArray
  | TypeSet
  | TypeMap
  | TypeUnion
  | TypeName
  | TypeDef
  | TypeValue;
