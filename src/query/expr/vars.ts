// Variables: the locals of a lateral scope (`over ... with x=e => (...)`)
// and the parameters of user functions, with the reference's recursion
// limit.

import { TypeNull } from '../../zed/types';
import { Value } from '../../zed/value';
import { Expr } from './expr';

/**
 * The values of the lateral-scope variables of one query, by slot. The
 * `over` operator sets a scope's slots (to values it owns) before running
 * its body for an input value.
 */
export class Frame {
  vals: (Value | undefined)[] = [];
}

export class UnboundVariable extends Error {}

/** A lateral-scope variable. */
export class VarExpr implements Expr {
  constructor(
    readonly frame: Frame,
    readonly slot: number,
    readonly name: string,
  ) {}

  eval(): Value {
    const v = this.frame.vals[this.slot];
    if (v === undefined) throw new UnboundVariable(`variable ${this.name} is not bound`);
    return v;
  }
}

/** The reference's limit on nested user-function calls. */
export const MAX_STACK_DEPTH = 10_000;

/**
 * Nested calls run on the JS stack per segment at first. Deeper calls are
 * run from a loop instead (see UserCall), so recursion reaches the
 * reference's limit on Node's default stack.
 */
const SEGMENT_LEVELS = 200;

export class StackOverflow extends Error {
  constructor() {
    super('stack overflow');
  }
}

/**
 * One call run from the driver loop: its function and arguments, its depth,
 * and the results of the calls it made at its segment's last level, in the
 * order it made them.
 */
class Segment {
  answers: Value[] = [];
  next = 0;

  constructor(
    public fn: UserFunction,
    public args: Value[],
    public depth: number,
    public levels: number,
  ) {}

  reset(fn: UserFunction, args: Value[], depth: number, levels: number): this {
    this.fn = fn;
    this.args = args;
    this.depth = depth;
    this.levels = levels;
    if (this.answers.length > 0) this.answers = [];
    return this;
  }
}

/**
 * Thrown (not an Error: no stack trace to capture) when a call would nest
 * deeper than its segment allows; the driver runs it from its loop, then
 * replays the segment, which finds the result among its answers.
 */
class Suspend {
  constructor(
    readonly fn: UserFunction,
    readonly args: Value[],
    readonly depth: number,
  ) {}
}

/** Call depth and the driver's state, shared by all user functions of a query. */
export class CallStack {
  /** Depth of the innermost active call (0 outside user functions). */
  depth = 0;
  /** The segment the driver is running, or null when no call is active. */
  seg: Segment | null = null;
  /** Calls active in the current run of seg. */
  level = 0;
  /** Levels given to new segments (lowered if the JS stack runs out). */
  levels = SEGMENT_LEVELS;
  /** The segment of outermost calls, reused. */
  readonly root: Segment = new Segment(null!, [], 0, SEGMENT_LEVELS);
}

const NULL = Value.null(TypeNull);

/**
 * A user function (`func name(params): (body)`).
 *
 * Evaluators keep their results and partial work in their own scratch
 * memory, so a body must not be re-entered while it is evaluating: a
 * recursive call would overwrite what its caller's nodes hold (the array
 * being built in `[f(n-1)[0] + 1]`, say). Each active call of the function
 * therefore runs its own compiled copy of the body, compiled when a call
 * first nests that deep. A segment of the driver (see drive) holds at most
 * its levels of active calls, which bounds the copies.
 */
export class UserFunction {
  /** Compiled bodies: the k-th active call runs bodies[k]. */
  readonly bodies: Expr[] = [];
  /** Compiles another copy of the body. */
  compile: (() => Expr) | null = null;
  /** Calls of this function now active. */
  active = 0;
  /** Arguments of the innermost active call. */
  args: Value[] = [];

  constructor(
    readonly name: string,
    readonly params: readonly string[],
    readonly stack: CallStack,
  ) {}

  body(k: number): Expr {
    let b = this.bodies[k];
    if (b === undefined) {
      b = this.compile!();
      this.bodies[k] = b;
    }
    return b;
  }
}

/** A parameter of a user function, read from its innermost call. */
export class ParamExpr implements Expr {
  constructor(
    readonly fn: UserFunction,
    readonly index: number,
  ) {}

  eval(): Value {
    return this.fn.args[this.index];
  }
}

function isJsStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/** Runs fn's body on args at depth, on the JS stack. */
function invoke(fn: UserFunction, args: Value[], depth: number): Value {
  const st = fn.stack;
  const saved = fn.args;
  const savedDepth = st.depth;
  fn.args = args;
  st.depth = depth;
  st.level++;
  const k = fn.active++;
  try {
    return fn.body(k).eval(NULL).copy();
  } finally {
    fn.active--;
    st.level--;
    st.depth = savedDepth;
    fn.args = saved;
  }
}

/**
 * Runs an outermost call. Calls nest on the JS stack up to a segment's
 * levels; a call below that suspends the segment, runs here as a segment
 * of its own, and the suspended segment is replayed from its start (bodies
 * are pure, so a replay makes the same calls in the same order) with that
 * result as the answer to the call. Each segment is replayed once per
 * suspension, so a linear recursion costs about twice its calls.
 */
function drive(fn: UserFunction, args: Value[], depth: number): Value {
  const st = fn.stack;
  let seg = st.root.reset(fn, args, depth, st.levels);
  // Only calls that nest past a segment need the list.
  let segs: Segment[] | null = null;
  try {
    for (;;) {
      seg.next = 0;
      st.seg = seg;
      st.level = 0;
      let r: Value;
      try {
        r = invoke(seg.fn, seg.args, seg.depth);
      } catch (e) {
        if (e instanceof Suspend) {
          segs ??= [seg];
          seg = new Segment(e.fn, e.args, e.depth, st.levels);
          segs.push(seg);
          continue;
        }
        if (isJsStackOverflow(e) && seg.levels > 1) {
          // Bodies too large for the levels: run this one with fewer
          // (its answers were for the old cut, so they go).
          seg.levels = st.levels = Math.max(1, seg.levels >> 2);
          seg.answers = [];
          continue;
        }
        if (isJsStackOverflow(e)) throw new StackOverflow();
        throw e;
      }
      if (segs === null) return r;
      segs.pop();
      if (segs.length === 0) return r;
      seg = segs[segs.length - 1];
      seg.answers.push(r);
    }
  } finally {
    st.seg = null;
    st.level = 0;
  }
}

/**
 * A call of a user function. Arguments and the result are copied: the
 * body may run this very node again (recursion), which would overwrite
 * memory its caller still holds.
 */
export class UserCall implements Expr {
  constructor(
    readonly fn: UserFunction,
    readonly args: Expr[],
  ) {}

  eval(self: Value): Value {
    const fn = this.fn;
    const args = new Array<Value>(this.args.length);
    for (let i = 0; i < args.length; i++) args[i] = this.args[i].eval(self).copy();
    const st = fn.stack;
    const depth = st.depth + 1;
    if (depth > MAX_STACK_DEPTH) throw new StackOverflow();
    const seg = st.seg;
    if (seg === null) return drive(fn, args, depth);
    if (st.level < seg.levels) return invoke(fn, args, depth);
    if (seg.next < seg.answers.length) return seg.answers[seg.next++];
    throw new Suspend(fn, args, depth);
  }
}
