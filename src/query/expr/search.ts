// Search: keyword terms, values, networks and patterns matched anywhere in
// a value, as the reference's search does (runtime/expr/filter.go).
//
// - A string term matches a string value containing it (ASCII case
//   folded) or a field name containing it.
// - Another literal matches values equal to it, and strings containing
//   its text; a network matches addresses in it and equal networks.
// - A pattern (glob or /regexp/) matches string values and field names.

import { decodeString } from '../../zed/primitive';
import { ID, isContainer, Kind, Type, TypeRecord } from '../../zed/types';
import { readUvarint, uv } from '../../zed/zcode';
import { Value } from '../../zed/value';
import { comparison, Predicate } from './compare';
import { isError } from './errors';
import { Expr, FALSE, TRUE } from './expr';
import {
  BytesTest,
  fieldNames,
  FoldedContains,
  TermFinder,
  TypeTest,
  ValueScreen,
} from './termfind';
import { Walker } from './walk';

/** A keyword (string) search. */
export class SearchString implements Expr {
  private readonly walker = new Walker();
  private readonly plans = new Map<Type, { names: boolean; strings: number[] } | null>();
  private readonly fold: FoldedContains;
  private readonly names: TypeTest;
  private readonly visit = (t: Type, buf: Buffer, off: number, len: number): boolean => {
    if (this.names.holds(t)) return true;
    return t.under.id === ID.String && len > 0 && this.fold.bytes(buf, off, len);
  };

  /** Values the term cannot be in, without walking them (SearchString's finder). */
  private readonly screen: ValueScreen | null;

  constructor(
    term: string,
    readonly operand: Expr,
    /** Where the term cannot be (compiler/bufferfilter.ts searchFinder), if known. */
    finder: TermFinder | null = null,
  ) {
    this.fold = new FoldedContains(term.normalize('NFC'));
    this.names = fieldNames((n) => this.fold.text(n));
    this.screen = finder && new ValueScreen(finder);
  }

  eval(self: Value): Value {
    const v = this.operand.eval(self);
    if (isError(v)) return FALSE;
    if (this.screen !== null && this.screen.rulesOut(v)) return FALSE;
    const plan = this.plan(v.type);
    if (plan === null)
      return this.walker.walk(v.type, v.buf, v.off, v.len, this.visit) ? TRUE : FALSE;
    if (plan.names) return TRUE;
    // A record of primitives: test its string fields in place.
    if (v.len <= 0) return FALSE;
    const buf = v.buf;
    const strings = plan.strings;
    let off = v.off;
    let k = 0;
    for (let i = 0; k < strings.length; i++) {
      let b = buf[off];
      let start = off + 1;
      let len = b - 1;
      if (b >= 0x80) {
        b = readUvarint(buf, off, v.off + v.len);
        start = uv.end;
        len = b - 1;
      }
      if (i === strings[k]) {
        if (len > 0 && this.fold.bytes(buf, start, len)) return TRUE;
        k++;
      }
      off = start + (len > 0 ? len : 0);
    }
    return FALSE;
  }

  /** For a record type of primitive fields: its string fields, and whether a name matches. */
  private plan(t: Type): { names: boolean; strings: number[] } | null {
    let p = this.plans.get(t);
    if (p === undefined) {
      p = null;
      const u = t.under;
      if (
        u instanceof TypeRecord &&
        u.fields.every((f) => !isContainer(f.type) && f.type.kind === Kind.Primitive)
      ) {
        const strings: number[] = [];
        u.fields.forEach((f, i) => {
          if (f.type.under.id === ID.String) strings.push(i);
        });
        p = { names: this.names.holds(t), strings };
      }
      this.plans.set(t, p);
    }
    return p;
  }
}

/** A search for a non-string literal: equal values, or strings containing its text. */
export class SearchValue implements Expr {
  private readonly walker = new Walker();
  private readonly fold: FoldedContains;
  private readonly visit: (t: Type, buf: Buffer, off: number, len: number) => boolean;

  private readonly screen: ValueScreen | null;

  constructor(
    text: string,
    eq: Predicate,
    readonly operand: Expr,
    /** Where the literal cannot be (an IP address's: its bytes or its text), if known. */
    finder: TermFinder | null = null,
  ) {
    this.screen = finder && new ValueScreen(finder);
    this.fold = new FoldedContains(text);
    this.visit = (t, buf, off, len) => {
      if (t.under.id === ID.String) return len > 0 && this.fold.bytes(buf, off, len);
      return eq(t, buf, off, len);
    };
  }

  eval(self: Value): Value {
    const v = this.operand.eval(self);
    if (isError(v)) return FALSE;
    if (this.screen !== null && this.screen.rulesOut(v)) return FALSE;
    return this.walker.walk(v.type, v.buf, v.off, v.len, this.visit) ? TRUE : FALSE;
  }
}

/** Does the IP address at buf[off,len) fall in the network (address + mask)? */
function inNet(net: Buffer, buf: Uint8Array, off: number, len: number): boolean {
  const n = net.length >> 1;
  if (len !== n) return false;
  for (let i = 0; i < n; i++) if ((buf[off + i] & net[n + i]) !== net[i]) return false;
  return true;
}

/** A search for a network: addresses in it and networks equal to it. */
export class SearchNet implements Expr {
  private readonly walker = new Walker();
  private readonly visit = (t: Type, buf: Buffer, off: number, len: number): boolean => {
    const id = t.under.id;
    if (id === ID.Net)
      return len === this.net.length && this.net.equals(buf.subarray(off, off + len));
    if (id === ID.IP) return len >= 0 && inNet(this.net, buf, off, len);
    return false;
  };

  constructor(
    private readonly net: Buffer,
    readonly operand: Expr,
  ) {}

  eval(self: Value): Value {
    const v = this.operand.eval(self);
    return this.walker.walk(v.type, v.buf, v.off, v.len, this.visit) ? TRUE : FALSE;
  }
}

/** A pattern search (glob or regexp) over string values and field names. */
export class SearchPattern implements Expr {
  private readonly walker = new Walker();
  private readonly names: TypeTest;
  private readonly visit = (t: Type, buf: Buffer, off: number, len: number): boolean => {
    if (this.names.holds(t)) return true;
    return t.under.id === ID.String && len >= 0 && this.re.test(decodeString(buf, off, len));
  };

  /** Values the pattern cannot match in, without walking them (compiler's patternFinder). */
  private readonly screen: ValueScreen | null;

  constructor(
    private readonly re: RegExp,
    readonly operand: Expr,
    finder: BytesTest | null = null,
  ) {
    this.names = fieldNames((n) => re.test(n));
    this.screen = finder && new ValueScreen(finder);
  }

  eval(self: Value): Value {
    const v = this.operand.eval(self);
    if (isError(v)) return FALSE;
    if (this.screen !== null && this.screen.rulesOut(v)) return FALSE;
    return this.walker.walk(v.type, v.buf, v.off, v.len, this.visit) ? TRUE : FALSE;
  }
}

/** `expr ~ /re/`: a string value matching the regular expression. */
export class RegexpMatch implements Expr {
  constructor(
    private readonly re: RegExp,
    readonly operand: Expr,
    /** Strings the pattern cannot match in, without decoding them (compiler's patternFinder). */
    private readonly finder: BytesTest | null = null,
  ) {}

  eval(self: Value): Value {
    const v = this.operand.eval(self);
    if (v.type.under.id !== ID.String || v.len < 0) return FALSE;
    if (this.finder !== null && !this.finder.testValue(v.type, v.buf, v.off, v.len)) return FALSE;
    return this.re.test(decodeString(v.buf, v.off, v.len)) ? TRUE : FALSE;
  }
}

/** The equality predicate a non-string search literal uses. */
export function searchPredicate(lit: Value): Predicate | null {
  return comparison('==', lit);
}
