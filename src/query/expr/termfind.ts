// Finding a search term in bytes and names, as a keyword search matches
// it (search.ts): in a string, ASCII case folded (FoldedContains), or in
// a leaf field name. TermFinder says, without walking a value, where the
// term cannot be: in bytes that do not hold it (found by the native byte
// search where the term allows) under types none of whose field names
// do. It tests a whole frame of values (bufferfilter.ts) and a value
// before search walks it.

import { decodeString } from '../../zed/primitive';
import {
  ID,
  Type,
  TypeArray,
  TypeErr,
  TypeMap,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';
import { Value } from '../../zed/value';

/** The dotted names of the leaf fields of a record type (FieldNameIter). */
export function leafFieldNames(t: TypeRecord, prefix = '', out: string[] = []): string[] {
  for (const f of t.fields) {
    const name = prefix === '' ? f.name : prefix + '.' + f.name;
    const u = f.type.under;
    if (u instanceof TypeRecord && u.fields.length > 0) leafFieldNames(u, name, out);
    else out.push(name);
  }
  return out;
}

/** A case-insensitive substring test (Go's EqualFold over windows), fast for ASCII. */
export class FoldedContains {
  private readonly lower: Uint8Array;
  private readonly upper: Uint8Array;
  private readonly ascii: boolean;
  private readonly folded: string;

  constructor(readonly term: string) {
    const bytes = Buffer.from(term, 'utf8');
    this.ascii = bytes.every((b) => b < 0x80);
    this.lower = Uint8Array.from(bytes, (b) => (b >= 0x41 && b <= 0x5a ? b + 32 : b));
    this.upper = Uint8Array.from(bytes, (b) => (b >= 0x61 && b <= 0x7a ? b - 32 : b));
    this.folded = term.toLowerCase();
  }

  bytes(buf: Uint8Array, off: number, len: number): boolean {
    if (!this.ascii) return this.text(decodeString(buf, off, Math.max(len, 0)));
    const lo = this.lower;
    const up = this.upper;
    const m = lo.length;
    if (m === 0) return true;
    const last = off + len - m;
    const l0 = lo[0];
    const u0 = up[0];
    outer: for (let i = off; i <= last; i++) {
      const c = buf[i];
      if (c !== l0 && c !== u0) continue;
      for (let k = 1; k < m; k++) {
        const d = buf[i + k];
        if (d !== lo[k] && d !== up[k]) continue outer;
      }
      return true;
    }
    return false;
  }

  text(s: string): boolean {
    if (this.ascii) {
      const b = Buffer.from(s, 'utf8');
      return this.bytes(b, 0, b.length);
    }
    return s.toLowerCase().includes(this.folded);
  }
}

/**
 * The batch of values a source's filter is testing (ScanFilter.apply, which
 * runs without yielding), and once a finder asks (testedEnd), the buffers
 * its values lie in (a few frames') and where in each the last of them
 * ends: a filter without a search pays nothing for it. Between two such
 * batches a buffer may be reused with other bytes, so what a finder found
 * in one (TermFinder's run) counts only within it: epoch tells them apart.
 */
export const testedBatch = {
  batch: null as readonly Value[] | null,
  located: false,
  bufs: [] as Uint8Array[],
  ends: [] as number[],
  epoch: 0,
};

/** At most this many buffers of a tested batch are told apart. */
const TESTED_BUFFERS = 8;

/** Marks batch as the one being tested (see testedBatch) until endTestedBatch(). */
export function beginTestedBatch(batch: readonly Value[]): void {
  testedBatch.epoch++;
  testedBatch.batch = batch;
  testedBatch.located = false;
}

export function endTestedBatch(): void {
  testedBatch.batch = null;
  // Not to hold the batch's buffers past it.
  testedBatch.bufs.length = testedBatch.ends.length = 0;
}

/** Finds the tested batch's buffers and where its values end in each. */
function locateTested(batch: readonly Value[]): void {
  testedBatch.located = true;
  const bufs = testedBatch.bufs;
  const ends = testedBatch.ends;
  bufs.length = 0;
  ends.length = 0;
  let k = -1;
  for (let i = 0; i < batch.length; i++) {
    const v = batch[i];
    if (k < 0 || bufs[k] !== v.buf) {
      k = bufs.indexOf(v.buf);
      if (k < 0) {
        if (bufs.length === TESTED_BUFFERS) {
          bufs.length = ends.length = 0;
          return;
        }
        k = bufs.push(v.buf) - 1;
        ends.push(0);
      }
    }
    if (v.off + v.len > ends[k]) ends[k] = v.off + v.len;
  }
}

/** Where the tested batch's values in buf end, or -1 where none is in it. */
function testedEnd(buf: Uint8Array): number {
  const batch = testedBatch.batch;
  if (batch === null) return -1;
  if (!testedBatch.located) locateTested(batch);
  const bufs = testedBatch.bufs;
  for (let k = 0; k < bufs.length; k++) if (bufs[k] === buf) return testedBatch.ends[k];
  return -1;
}

/** What rules bytes out before a search looks at their values: one term, or any of several. */
export interface BytesTest {
  /** Whether buf[start, end) or a field name of one of types may hold what is searched for. */
  test(buf: Uint8Array, start: number, end: number, types: readonly Type[]): boolean;
  /** test() for the bytes of one value of type t (len -1: a null). */
  testValue(t: Type, buf: Uint8Array, off: number, len: number): boolean;
}

/**
 * One ASCII search term (a non-ASCII term folds beyond bytes: no frame
 * test): a string's text, or an IP literal's, whose search also matches
 * the address itself (raw: its bytes) and no field names. A pattern
 * search's finder looks for a literal its matches contain, and tests
 * field names by the pattern (nameTest).
 */
export class TermFinder implements BytesTest {
  private readonly fold: FoldedContains;
  /** Whether a record within a type has a leaf field name the search matches. */
  private readonly names = new TypeTest((t) =>
    recordsWithin(t).some((r) => leafFieldNames(r).some(this.nameTest)),
  );
  /**
   * What the native byte search looks for: the term's longest run of
   * two or more bytes that are not letters (case folding leaves them as
   * they are), else one of its characters (a letter in both cases) or
   * two, one a letter. Where one is found, the term around it (anchorAt
   * is its place in the term) is compared folded. Each place found costs
   * a call, so the needle is chosen by the data it is first searched in
   * (tune), until then a character by a guess.
   */
  private needles: (Buffer | number)[];
  private anchorAt: number;
  /** Whether the needle is still to be chosen by the data. */
  private untuned = false;
  private readonly len: number;
  /** Whether the needle is a character common in the data (see testValue). */
  private commonAnchor = false;
  /**
   * Within a tested batch (testedBatch, of this epoch): the term is
   * nowhere in runBuf[runFrom, runHit), and starts at runHit (-1: nowhere
   * before the batch's end). One native search then rules out every value
   * of a batch up to the next place the term is, not one call a value.
   */
  private runEpoch = -1;
  private runBuf: Uint8Array | null = null;
  private runFrom = 0;
  private runHit = -1;
  /** The needles of the run, its bytes, and where each needle is next in them (see textAt). */
  private runNeedles: (Buffer | number)[] = [];
  private runView: Buffer | null = null;
  private runAt: number[] = [];

  constructor(
    private readonly term: string,
    private readonly raw: Buffer | null = null,
    /** The field names the search matches (default: those holding the term). */
    private readonly nameTest: (name: string) => boolean = (n) => this.fold.text(n),
  ) {
    this.fold = new FoldedContains(term);
    this.len = term.length;
    const runs = term.match(/[^A-Za-z]{2,}/g) ?? [];
    const best = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
    if (best !== '') {
      this.needles = [Buffer.from(best, 'latin1')];
      this.anchorAt = term.indexOf(best);
    } else {
      // The rarest letter by English text's frequencies, or a non-letter.
      let at = 0;
      for (let i = 1; i < term.length; i++) if (rarity(term[i]) > rarity(term[at])) at = i;
      this.anchorAt = at;
      this.needles = charNeedles(term.charCodeAt(at));
      // A term of letters and lone punctuation: its anchor is punctuation
      // (".co.uk": "."), common in text, found again and again.
      this.commonAnchor = this.needles.length === 1;
      this.untuned = true;
    }
  }

  /**
   * Chooses the needle by a sample of buf[start, end) (of 1 KiB or more; a
   * smaller one is passed over): one character of the term in both cases,
   * or two, one a letter, where that costs less by what the sample holds
   * (see searchCost: "Cextb6l": "x" rather than "6", which a log's numbers
   * hold again and again; "co.uk": not ".u", whose first byte, which the
   * native search stops at, every domain name holds). The anchor is common
   * where found more than once in 64 bytes: then a short value is searched
   * in JavaScript.
   */
  private tune(buf: Uint8Array, start: number, end: number): void {
    if (end - start < 1024) return;
    this.untuned = false;
    const stop = Math.min(end, start + SAMPLE);
    const counts = new Uint32Array(256);
    // Pairs of bytes, letters lowercased: pairs[a << 8 | b].
    const pairs = new Uint32Array(65536);
    let prev = fold(buf[start]);
    counts[buf[start]]++;
    for (let i = start + 1; i < stop; i++) {
      const c = buf[i];
      counts[c]++;
      const f = fold(c);
      pairs[(prev << 8) | f]++;
      prev = f;
    }
    const term = this.term;
    const both = (c: number) => charNeedles(c).reduce((n, x) => n + counts[x], 0);
    let at = 0;
    let found = both(term.charCodeAt(0));
    let cost = searchCost(found, found);
    let needles: (Buffer | number)[] = charNeedles(term.charCodeAt(0));
    for (let i = 0; i < term.length; i++) {
      const a = term.charCodeAt(i);
      const n = both(a);
      if (searchCost(n, n) < cost) {
        [at, found, cost, needles] = [i, n, searchCost(n, n), charNeedles(a)];
      }
      if (i + 1 === term.length) break;
      const b = term.charCodeAt(i + 1);
      if (isLetter(a) === isLetter(b)) continue;
      // Two needles, each stopped at its first byte.
      const hits = pairs[(fold(a) << 8) | fold(b)];
      const c = searchCost(isLetter(a) ? n : 2 * n, hits);
      if (c < cost) {
        const pair = isLetter(a)
          ? [Buffer.from([a | 0x20, b]), Buffer.from([a & ~0x20, b])]
          : [Buffer.from([a, b | 0x20]), Buffer.from([a, b & ~0x20])];
        [at, found, cost, needles] = [i, hits, c, pair];
      }
    }
    this.anchorAt = at;
    this.needles = needles;
    this.commonAnchor = found * 64 > stop - start;
  }

  /** Whether buf[start, end) or a field name of one of types may hold the term. */
  test(buf: Uint8Array, start: number, end: number, types: readonly Type[]): boolean {
    if (this.raw === null && types.some((t) => this.names.holds(t))) return true;
    if (this.untuned) this.tune(buf, start, end);
    return this.inBytes(buf, start, end, types.some(this.holdsAddress));
  }

  /** Whether values of a type may hold the raw address (an IP inside). */
  private readonly addresses = innerTypeTest((u) => u.id === ID.IP);
  private readonly holdsAddress = (t: Type): boolean =>
    this.raw !== null && this.addresses.holds(t);

  /** test() for the bytes of one value of type t (len -1: a null). */
  testValue(t: Type, buf: Uint8Array, off: number, len: number): boolean {
    if (this.raw === null && this.names.holds(t)) return true;
    if (len <= 0) return false;
    const end = testedEnd(buf);
    const inBatch = off + len <= end;
    // In a tested batch, the needle is chosen by the bytes from here on.
    if (this.untuned) this.tune(buf, off, inBatch ? end : off + len);
    // A short value (a record of a log line, ~150 bytes) is searched in
    // JavaScript where the native search would stop at a common anchor
    // again and again: each call then costs more than the bytes.
    if (this.raw === null && (len <= TINY || (this.commonAnchor && len <= SHORT)))
      return this.fold.bytes(buf, off, len);
    if (inBatch) return this.inRun(buf, off, len, end, this.holdsAddress(t));
    return this.inBytes(buf, off, off + len, this.holdsAddress(t));
  }

  /**
   * testValue's byte test for a value of the tested batch, whose values
   * in buf end at end (see runHit).
   */
  private inRun(buf: Uint8Array, off: number, len: number, end: number, raw: boolean): boolean {
    const fresh =
      this.runEpoch !== testedBatch.epoch ||
      this.runBuf !== buf ||
      this.runNeedles !== this.needles ||
      off < this.runFrom;
    if (fresh || (this.runHit >= 0 && this.runHit < off)) {
      if (fresh) {
        this.runEpoch = testedBatch.epoch;
        this.runBuf = buf;
        this.runNeedles = this.needles;
        this.runView = Buffer.from(buf.buffer, buf.byteOffset, end);
        this.runAt = this.needles.map(() => UNSEARCHED);
      }
      this.runFrom = off;
      this.runHit = this.textAt(this.runView!, off, end, this.runAt);
    }
    const hit = this.runHit;
    if (hit >= 0 && hit + this.len <= off + len) return true;
    return raw && Buffer.from(buf.buffer, buf.byteOffset, off + len).indexOf(this.raw!, off) >= 0;
  }

  /**
   * Whether buf[start, end) may hold the term (or the raw address). The
   * needles are searched for in step, so that the first place the term
   * is at ends the search (a common term is found near a frame's start in
   * whichever case it is written).
   */
  private inBytes(buf: Uint8Array, start: number, end: number, raw: boolean): boolean {
    // A view that ends where the bytes do: a search past them (the rest
    // of a fetched chunk) would cost a chunk's bytes a frame.
    const b = Buffer.from(buf.buffer, buf.byteOffset, end);
    // The raw address last: where the text is found first, the bytes are
    // searched once.
    if (this.hasText(b, start, end)) return true;
    return raw && b.indexOf(this.raw!, start) >= 0;
  }

  /** Whether b[start, end) holds the term (folded). */
  private hasText(b: Buffer, start: number, end: number): boolean {
    return this.textAt(b, start, end) >= 0;
  }

  /** Where in b[start, end) the term (folded) first starts, or -1. */
  private textAt(
    b: Buffer,
    start: number,
    end: number,
    /**
     * Per needle, where it is next from a place at or before start (-1:
     * nowhere in b), or UNSEARCHED; kept up to date for the next call.
     * A needle that is far off, as an uppercase one often is, is then not
     * searched for again and again.
     */
    at: number[] = this.needles.map(() => UNSEARCHED),
  ): number {
    const needles = this.needles;
    for (let j = 0; j < at.length; j++)
      if (at[j] === UNSEARCHED || (at[j] >= 0 && at[j] < start))
        at[j] = b.indexOf(needles[j], start);
    for (;;) {
      // The nearest place a needle is at.
      let k = -1;
      for (let j = 0; j < at.length; j++) if (at[j] >= 0 && (k < 0 || at[j] < at[k])) k = j;
      if (k < 0) return -1;
      const from = at[k] - this.anchorAt;
      if (from >= start && from + this.len <= end && this.fold.bytes(b, from, this.len))
        return from;
      at[k] = b.indexOf(needles[k], at[k] + 1);
    }
  }
}

/**
 * What a native search costs, in ns, that stops (memchr) at a needle's
 * first byte stops times and returns hits times to JavaScript, as
 * measured over a DNS log's values: about 8 and 20 ns.
 */
function searchCost(stops: number, hits: number): number {
  return stops * 8 + hits * 20;
}

/** textAt's mark of a needle not searched for yet. */
const UNSEARCHED = -2;

/**
 * Values of at most this many bytes TermFinder.testValue searches in
 * JavaScript where its anchor is common, and of at most TINY (a string
 * field's, ~25 bytes) whatever it is.
 */
const SHORT = 512;
const TINY = 64;

/** How many bytes tune samples. */
const SAMPLE = 16384;

/** Several finders, any of which may find what is searched for (a pattern's alternatives). */
export class AnyTerm implements BytesTest {
  constructor(private readonly finders: readonly TermFinder[]) {}

  test(buf: Uint8Array, start: number, end: number, types: readonly Type[]): boolean {
    return this.finders.some((f) => f.test(buf, start, end, types));
  }

  testValue(t: Type, buf: Uint8Array, off: number, len: number): boolean {
    return this.finders.some((f) => f.testValue(t, buf, off, len));
  }
}

/**
 * A TermFinder before each value a search walks: a value it rules out is
 * not walked. Where most values pass it (a term in most records) it only
 * adds to their walk, so after 1024 values of which more than half
 * passed, the next 16384 are walked without it.
 */
export class ValueScreen {
  private checked = 0;
  private passed = 0;
  private unchecked = 0;

  constructor(private readonly finder: BytesTest) {}

  rulesOut(v: Value): boolean {
    if (this.unchecked > 0) {
      this.unchecked--;
      return false;
    }
    const out = !this.finder.testValue(v.type, v.buf, v.off, v.len);
    this.checked++;
    if (!out) this.passed++;
    if (this.checked === 1024) {
      if (this.passed > 512) this.unchecked = 16384;
      this.checked = this.passed = 0;
    }
    return out;
  }
}

/** A test of types, worked out once per type. */
export class TypeTest {
  private readonly seen = new Map<Type, boolean>();
  // The last type asked about: a scan's values come in runs of one type.
  private last: Type | null = null;
  private lastHolds = false;

  constructor(private readonly test: (t: Type) => boolean) {}

  holds(t: Type): boolean {
    if (t === this.last) return this.lastHolds;
    let m = this.seen.get(t);
    if (m === undefined) {
      m = this.test(t);
      this.seen.set(t, m);
    }
    this.last = t;
    this.lastHolds = m;
    return m;
  }
}

/** Per type: whether it is a record one of whose leaf field names satisfies test. */
export function fieldNames(test: (name: string) => boolean): TypeTest {
  return new TypeTest((t) => t.under instanceof TypeRecord && leafFieldNames(t.under).some(test));
}

/** Per type: whether it, or a type a value of it may hold, satisfies test (innerTypes). */
export function innerTypeTest(test: (u: Type) => boolean): TypeTest {
  return new TypeTest((t) => innerTypes(t).some(test));
}

/** Whether c is an ASCII letter. */
function isLetter(c: number): boolean {
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

/** c, lowercased where it is an ASCII letter. */
function fold(c: number): number {
  return isLetter(c) ? c | 0x20 : c;
}

/** The native search's needles for a character: a letter's in both cases. */
function charNeedles(c: number): number[] {
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x7a ? [lower, lower - 0x20] : [c];
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
export function innerTypes(t: Type, out: Type[] = []): Type[] {
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
