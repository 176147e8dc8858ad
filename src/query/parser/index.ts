// The Zed query parser: parse(text) gives the syntax tree (src/query/ast.ts)
// or throws a ParseError worded and positioned as the reference reports it.
//
// It is a hand-written recursive-descent parser that makes the same
// choices as the reference grammar (Zed v1.8 compiler/parser/parser.peg),
// including its ordered alternatives, and reports the farthest position it
// reached, as the reference does. Results of the rules that can be retried
// at one position (expressions, literals, calls, searches, operations) are
// memoized, so nesting cannot make parsing exponential.

import type { Program } from '../ast';
import { ParseError, syntaxError } from './error';
import { OpParser } from './ops';

export { ParseError } from './error';

class Parser extends OpParser {
  run(): Program {
    let prog: Program | null;
    try {
      prog = this.program();
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      // Nesting deeper than the JavaScript stack allows (hundreds of levels).
      const err = syntaxError(this.src, this.pos);
      throw new ParseError(
        err.message.replace(/:\n/, ' (nested too deeply):\n'),
        err.offset,
        err.line,
        err.column,
      );
    }
    if (prog === null) throw syntaxError(this.src, this.far);
    return prog;
  }
}

/**
 * Parses a Zed query. An empty query means `*` (everything), as in the
 * reference. Throws ParseError.
 */
export function parse(text: string): Program {
  return new Parser(text === '' ? '*' : text).run();
}
