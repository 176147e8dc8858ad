// A test of a whole frame of values for a keyword search, before its
// values are searched one by one (the reference's BufferFilter). A string
// search term matches a string value that contains it, ASCII case folded,
// or a leaf field name that does (search.ts). A frame can hold such a
// value only if its decompressed payload contains the term's bytes (a
// string's bytes are in the payload as they are) or one of its values'
// types has such a field name; a frame with neither is skipped whole,
// which for a rare term is nearly every frame. An IP literal's search
// matches the address and strings holding its text, so its frames are
// those holding either.

import { Type, TypeArray, TypeErr, TypeMap, TypeRecord, TypeSet, TypeUnion } from '../../zed/types';
import { FoldedContains, leafFieldNames } from './search';

/**
 * A frame test: false when no value of the frame can pass the filter.
 * 'errors' passes a frame holding an error value (an error a filter's
 * comparison of a field gives back, which the filter outputs) as well as
 * the frames its operand passes.
 */
export type FrameFilter =
  | { kind: 'term'; term: FrameTerm }
  | { kind: 'and' | 'or'; lhs: FrameFilter; rhs: FrameFilter }
  | { kind: 'errors'; operand: FrameFilter; errors: ErrorTypes };

/** Per type: whether a value of it may hold an error value. */
export class ErrorTypes {
  private readonly seen = new Map<Type, boolean>();

  within(t: Type): boolean {
    let m = this.seen.get(t);
    if (m === undefined) {
      m = innerTypes(t).some((u) => u instanceof TypeErr);
      this.seen.set(t, m);
    }
    return m;
  }
}

/**
 * One ASCII search term (a non-ASCII term folds beyond bytes: no frame
 * test): a string's text, or an IP literal's, whose search also matches
 * the address itself (raw: its bytes) and no field names.
 */
export class FrameTerm {
  private readonly fold: FoldedContains;
  /** Per type: whether a record within it has a leaf field name holding the term. */
  private readonly names = new Map<Type, boolean>();
  /**
   * The term's longest run of bytes that are not letters (case folding
   * leaves them as they are), where it has one of two or more, and where
   * it starts in the term: found by the native byte search, then the
   * term around it compared folded. Else every byte is looked at in turn.
   */
  private readonly anchor: Buffer | null = null;
  private readonly anchorAt: number = 0;
  /**
   * Else its rarest character (a non-letter, or the rarest letter by
   * English text's frequencies, in both cases), found by the native byte
   * search.
   */
  private readonly letters: [number, number] | null = null;
  private readonly len: number;

  constructor(
    term: string,
    private readonly raw: Buffer | null = null,
  ) {
    this.fold = new FoldedContains(term);
    this.len = term.length;
    const runs = term.match(/[^A-Za-z]{2,}/g) ?? [];
    const best = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
    if (best !== '') {
      this.anchor = Buffer.from(best, 'latin1');
      this.anchorAt = term.indexOf(best);
    } else {
      let at = 0;
      for (let i = 1; i < term.length; i++) if (rarity(term[i]) > rarity(term[at])) at = i;
      const c = term.charCodeAt(at);
      const lower = c | 0x20;
      this.anchorAt = at;
      // A letter in both cases, or a lone non-letter as it is.
      if (lower >= 0x61 && lower <= 0x7a) this.letters = [lower, lower - 0x20];
      else this.anchor = Buffer.from([c]);
    }
  }

  /** Whether buf[start, end) or a field name of one of types may hold the term. */
  test(buf: Uint8Array, start: number, end: number, types: readonly Type[]): boolean {
    // A view that ends where the frame does: a search past it (the rest
    // of a fetched chunk) would cost a chunk's bytes a frame.
    const b = Buffer.from(buf.buffer, buf.byteOffset, end);
    if (this.raw !== null) {
      if (b.indexOf(this.raw, start) >= 0) return true;
    } else if (types.some((t) => this.named(t))) return true;
    if (this.anchor !== null) return this.around(b, this.anchor, start, end);
    if (this.letters !== null) return this.aroundEither(b, this.letters, start, end);
    return this.fold.bytes(buf, start, end - start);
  }

  /**
   * around() for a letter in either case, the two searches taken in step
   * so that the first place the term is at ends them (a common term is
   * found near a frame's start in whichever case it is written).
   */
  private aroundEither(b: Buffer, [l, u]: [number, number], start: number, end: number): boolean {
    let lo = b.indexOf(l, start);
    let up = b.indexOf(u, start);
    while (lo >= 0 || up >= 0) {
      const lower = up < 0 || (lo >= 0 && lo < up);
      const at = lower ? lo : up;
      const from = at - this.anchorAt;
      if (from >= start && from + this.len <= end && this.fold.bytes(b, from, this.len))
        return true;
      if (lower) lo = b.indexOf(l, lo + 1);
      else up = b.indexOf(u, up + 1);
    }
    return false;
  }

  /** Whether the term is in b[start, end) where anchor is at its place in it. */
  private around(b: Buffer, anchor: Buffer, start: number, end: number): boolean {
    for (let at = b.indexOf(anchor, start); at >= 0; at = b.indexOf(anchor, at + 1)) {
      const from = at - this.anchorAt;
      if (from >= start && from + this.len <= end && this.fold.bytes(b, from, this.len))
        return true;
    }
    return false;
  }

  private named(t: Type): boolean {
    let m = this.names.get(t);
    if (m === undefined) {
      m = false;
      for (const r of recordsWithin(t))
        if (leafFieldNames(r).some((n) => this.fold.text(n))) m = true;
      this.names.set(t, m);
    }
    return m;
  }
}

/** Letters from the most to the least frequent in English text. */
const BY_FREQUENCY = 'etaoinshrdlcumwfgypbvkjxqz';

/** How rare a character is as a letter (a non-letter: rarer than any). */
function rarity(ch: string): number {
  const i = BY_FREQUENCY.indexOf(ch.toLowerCase());
  return i < 0 ? BY_FREQUENCY.length : i;
}

/** The record types a value of type t may hold, itself among them (search walks them all). */
function recordsWithin(t: Type): TypeRecord[] {
  return innerTypes(t).filter((u): u is TypeRecord => u instanceof TypeRecord);
}

/** The underlying types a value of type t may hold, its own first, each once. */
function innerTypes(t: Type, out: Type[] = []): Type[] {
  const u = t.under;
  if (out.includes(u)) return out;
  out.push(u);
  let inner: readonly Type[] = [];
  if (u instanceof TypeRecord) inner = u.fields.map((f) => f.type);
  else if (u instanceof TypeArray || u instanceof TypeSet || u instanceof TypeErr) inner = [u.type];
  else if (u instanceof TypeMap) inner = [u.keyType, u.valType];
  else if (u instanceof TypeUnion) inner = u.types;
  for (const x of inner) innerTypes(x, out);
  return out;
}

/** Whether a frame whose payload is buf[start, end), of values of types, may pass f. */
export function framePasses(
  f: FrameFilter,
  buf: Uint8Array,
  start: number,
  end: number,
  types: readonly Type[],
): boolean {
  switch (f.kind) {
    case 'term':
      return f.term.test(buf, start, end, types);
    case 'and':
      return (
        framePasses(f.lhs, buf, start, end, types) && framePasses(f.rhs, buf, start, end, types)
      );
    case 'or':
      return (
        framePasses(f.lhs, buf, start, end, types) || framePasses(f.rhs, buf, start, end, types)
      );
    case 'errors':
      return (
        types.some((t) => f.errors.within(t)) || framePasses(f.operand, buf, start, end, types)
      );
  }
}
