// Parsing the many ways people write times, for casts of strings to time.
//
// The reference's cast uses a "parse any date" library; this accepts the
// same families of forms: RFC 3339 and its relatives (space for T, comma
// or colon before the fraction, offsets as Z, ±hh, ±hhmm, ±hh:mm, zone
// names), year-first dates with - / . : separators, month-first numeric
// dates (m/d/y, m.d.y, m:d:y), dates with month names in either order and
// optional weekdays, ordinals and "at", Apache log times, yymmdd, CJK
// dates, and Unix times as 10, 13, 16 or 19 digits. Times without a zone
// are UTC; zone names other than UTC/GMT are taken as UTC unless an offset
// accompanies them. Anything else is rejected (the caster then tries the
// string as a float of nanoseconds).

import { daysFromCivil, TimeParts } from '../../zed/nano';

const MONTHS: Record<string, number> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};

const WEEKDAYS = new Set([
  'mon',
  'monday',
  'tue',
  'tues',
  'tuesday',
  'wed',
  'wednesday',
  'thu',
  'thur',
  'thurs',
  'thursday',
  'fri',
  'friday',
  'sat',
  'saturday',
  'sun',
  'sunday',
]);

/** The fields of a parsed time. */
class Parts {
  year = -1;
  month = -1;
  day = -1;
  hour = 0;
  minute = 0;
  second = 0;
  nanos = 0;
  /** Offset east of UTC in minutes, when one was given. */
  offset: number | null = null;
  /** A zone name of UTC overrides any offset (as Go's parser does). */
  utc = false;
  pm: boolean | null = null;
}

function twoDigitYear(yy: number): number {
  return yy >= 69 ? 1900 + yy : 2000 + yy;
}

function year(text: string): number {
  return text.length === 2 ? twoDigitYear(Number(text)) : Number(text);
}

function daysIn(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Month number of a month name (3 letters or more, "sept", a trailing period allowed), or 0. */
function monthOf(word: string): number {
  return MONTHS[word.toLowerCase().replace(/\.$/, '')] ?? 0;
}

const TIME_RE = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,:](\d+))?)?/;
const OFFSET_RE = /^([+-])(\d{2})(?::?(\d{2}))?(?![\d:])/;

/**
 * Parses a clock time and what may follow it (am/pm, Z, offsets, zone
 * names, and a trailing year when the date has none) from rest. Returns
 * false when something in rest is not understood.
 */
function parseTimeTail(rest: string, p: Parts, needYear: boolean): boolean {
  const t = TIME_RE.exec(rest);
  if (!t) return false;
  p.hour = Number(t[1]);
  p.minute = Number(t[2]);
  p.second = t[3] === undefined ? 0 : Number(t[3]);
  if (t[4] !== undefined) p.nanos = Number(t[4].slice(0, 9).padEnd(9, '0'));
  rest = rest.slice(t[0].length);
  let sawOffset = false;
  while (rest.length > 0) {
    let m: RegExpExecArray | null;
    if ((m = /^ ?([aApP])\.?[mM]\.?(?![A-Za-z])/.exec(rest))) {
      if (p.pm !== null) return false;
      p.pm = m[1] === 'p' || m[1] === 'P';
    } else if ((m = /^[Zz](?![A-Za-z])/.exec(rest))) {
      if (sawOffset) return false;
      p.offset = 0;
      sawOffset = true;
    } else if ((m = /^ ?([+-]\d{2}(?::?\d{2})?)(?![\d:])/.exec(rest))) {
      const o = OFFSET_RE.exec(m[1])!;
      // Only the first of several offsets counts.
      if (!sawOffset) setOffset(p, o);
      sawOffset = true;
    } else if ((m = /^ ([A-Za-z]{1,5})(?:([+-]\d{2}(?::?\d{2})?))?(?![A-Za-z\d])/.exec(rest))) {
      const name = m[1];
      if (name.toUpperCase() !== name) return false;
      if (name === 'UTC') p.utc = true;
      if (m[2] !== undefined) {
        if (!sawOffset) setOffset(p, OFFSET_RE.exec(m[2])!);
        sawOffset = true;
      }
    } else if (needYear && (m = /^ (\d{4})(?!\d)/.exec(rest))) {
      p.year = Number(m[1]);
      needYear = false;
    } else {
      return false;
    }
    rest = rest.slice(m[0].length);
  }
  return !needYear;
}

function setOffset(p: Parts, o: RegExpExecArray): void {
  const mins = Number(o[2]) * 60 + (o[3] === undefined ? 0 : Number(o[3]));
  p.offset = o[1] === '-' ? -mins : mins;
}

/** What may follow a date: nothing, or a separator and a time. */
function parseAfterDate(rest: string, p: Parts, needYear = false): boolean {
  if (rest === '') return !needYear;
  const m = /^(?:[Tt]|,? (?:[Aa][Tt] )?|,)/.exec(rest);
  if (!m || m[0] === '') return false;
  return parseTimeTail(rest.slice(m[0].length), p, needYear);
}

/** Dates that start with a number. */
function parseNumeric(s: string, p: Parts): boolean {
  let m: RegExpExecArray | null;
  // 2006-01-02, 2006-1-2, 2006-01 and their times; 2020-07-20+08:00.
  if ((m = /^(\d{4})-(\d{1,2})(?:-(\d{1,2}))?/.exec(s))) {
    p.year = Number(m[1]);
    p.month = Number(m[2]);
    p.day = m[3] === undefined ? 1 : Number(m[3]);
    const rest = s.slice(m[0].length);
    if (m[3] === undefined) return rest === '';
    const o = OFFSET_RE.exec(rest);
    if (o && o[0].length === rest.length && rest.length >= 5) {
      setOffset(p, o);
      return true;
    }
    return parseAfterDate(rest, p);
  }
  // 2013-Feb-03
  if ((m = /^(\d{4})-([A-Za-z]+)-(\d{1,2})$/.exec(s))) {
    p.year = Number(m[1]);
    p.month = monthOf(m[2]);
    p.day = Number(m[3]);
    return p.month > 0 && m[2].length >= 3;
  }
  // 2006/01/02 [time]
  if ((m = /^(\d{4})\/(\d{1,2})\/(\d{1,2})/.exec(s))) {
    p.year = Number(m[1]);
    p.month = Number(m[2]);
    p.day = Number(m[3]);
    return parseAfterDate(s.slice(m[0].length), p);
  }
  // 2006.01.02, 2006.01
  if ((m = /^(\d{4})\.(\d{1,2})(?:\.(\d{1,2}))?$/.exec(s))) {
    p.year = Number(m[1]);
    p.month = Number(m[2]);
    p.day = m[3] === undefined ? 1 : Number(m[3]);
    return true;
  }
  // 2006:01:02 time
  if ((m = /^(\d{4}):(\d{2}):(\d{2})/.exec(s))) {
    p.year = Number(m[1]);
    p.month = Number(m[2]);
    p.day = Number(m[3]);
    return parseAfterDate(s.slice(m[0].length), p);
  }
  // 2006年01月02日 [time]
  if ((m = /^(\d{4})年(\d{1,2})月(\d{1,2})日/.exec(s))) {
    p.year = Number(m[1]);
    p.month = Number(m[2]);
    p.day = Number(m[3]);
    return parseAfterDate(s.slice(m[0].length), p);
  }
  // Month first: 01/02/2006, 1.2.06, 01:02:2006 (one separator throughout).
  if ((m = /^(\d{1,2})([/.:])(\d{1,2})\2(\d{4}|\d{2})(?!\d)/.exec(s))) {
    p.month = Number(m[1]);
    p.day = Number(m[3]);
    p.year = year(m[4]);
    return parseAfterDate(s.slice(m[0].length), p);
  }
  // 02/Jan/2006:15:04:05 -0700 (web server logs)
  if ((m = /^(\d{1,2})\/([A-Za-z]{3,})\/(\d{4}):/.exec(s))) {
    p.day = Number(m[1]);
    p.month = monthOf(m[2]);
    p.year = Number(m[3]);
    return p.month > 0 && parseTimeTail(s.slice(m[0].length), p, false);
  }
  // 02-Jan-2006, 02-Jan-06 [time]
  if ((m = /^(\d{1,2})-([A-Za-z]{3,})-(\d{4}|\d{2})(?!\d)/.exec(s))) {
    p.day = Number(m[1]);
    p.month = monthOf(m[2]);
    p.year = year(m[3]);
    return p.month > 0 && parseAfterDate(s.slice(m[0].length), p);
  }
  // 060102 15:04:05
  if ((m = /^(\d{2})(\d{2})(\d{2}) /.exec(s))) {
    p.year = twoDigitYear(Number(m[1]));
    p.month = Number(m[2]);
    p.day = Number(m[3]);
    return parseTimeTail(s.slice(m[0].length), p, false);
  }
  // 2 January 2006 [, time], 02 Jan 06
  if ((m = /^(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z]+\.?),? (\d{4}|\d{2})(?!\d)/i.exec(s))) {
    p.day = Number(m[1]);
    p.month = monthOf(m[2]);
    p.year = year(m[3]);
    return p.month > 0 && parseAfterDate(s.slice(m[0].length), p);
  }
  return false;
}

/** Dates that start with a word (weekday or month). */
function parseAlpha(s: string, p: Parts): boolean {
  let m: RegExpExecArray | null;
  // A leading weekday, with or without a comma.
  if ((m = /^([A-Za-z]+),? /.exec(s)) && WEEKDAYS.has(m[1].toLowerCase())) {
    s = s.slice(m[0].length);
    // Mon, 02 Jan 2006 15:04:05 MST / Monday, 02-Jan-06 15:04:05 MST / Fri, 03-Jul 2015 ...
    if ((m = /^(\d{1,2})[ -]([A-Za-z]+)[ -](\d{4}|\d{2})(?!\d)/.exec(s))) {
      p.day = Number(m[1]);
      p.month = monthOf(m[2]);
      p.year = year(m[3]);
      return p.month > 0 && parseAfterDate(s.slice(m[0].length), p);
    }
  }
  // Jan 2 15:04:05 [zone] 2006 (ANSI C, Unix and Ruby dates)
  if ((m = /^([A-Za-z]+) +(\d{1,2}) (?=\d{1,2}:)/.exec(s))) {
    p.month = monthOf(m[1]);
    p.day = Number(m[2]);
    return p.month > 0 && parseTimeTail(s.slice(m[0].length), p, true);
  }
  // January 2[nd][,] 2006 [[,] [at] time], Jan. 2, '06
  if ((m = /^([A-Za-z]+\.?) (\d{1,2})(?:st|nd|rd|th)?,? (?:(\d{4})|'(\d{2}))(?!\d)/i.exec(s))) {
    p.month = monthOf(m[1]);
    p.day = Number(m[2]);
    p.year = m[3] !== undefined ? Number(m[3]) : twoDigitYear(Number(m[4]));
    return p.month > 0 && parseAfterDate(s.slice(m[0].length), p);
  }
  return false;
}

function digits(buf: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = buf[at + i] - 0x30;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * The common RFC 3339 form (2006-01-02T15:04:05[.frac](Z|±hh:mm)) read
 * straight from UTF-8 bytes into p (seconds since the epoch and
 * nanoseconds); false for anything else (which then takes parseAnyTime's
 * general path; the results agree).
 */
export function parseRFC3339Parts(
  buf: Uint8Array,
  off: number,
  len: number,
  p: TimeParts,
): boolean {
  if (len < 20 || buf[off + 4] !== 0x2d || buf[off + 7] !== 0x2d || buf[off + 10] !== 0x54)
    return false;
  if (buf[off + 13] !== 0x3a || buf[off + 16] !== 0x3a) return false;
  const year = digits(buf, off, 4);
  const month = digits(buf, off + 5, 2);
  const day = digits(buf, off + 8, 2);
  const hour = digits(buf, off + 11, 2);
  const minute = digits(buf, off + 14, 2);
  const second = digits(buf, off + 17, 2);
  if ((year | month | day | hour | minute | second) < 0) return false;
  let i = off + 19;
  const end = off + len;
  let nanos = 0;
  if (buf[i] === 0x2e) {
    let n = 0;
    for (i++; i < end && buf[i] >= 0x30 && buf[i] <= 0x39; i++, n++) {
      if (n < 9) nanos = nanos * 10 + buf[i] - 0x30;
    }
    if (n === 0) return false;
    for (; n < 9; n++) nanos *= 10;
  }
  let offset = 0;
  if (i === end - 1 && buf[i] === 0x5a) {
    offset = 0;
  } else if (i === end - 6 && (buf[i] === 0x2b || buf[i] === 0x2d) && buf[i + 3] === 0x3a) {
    const oh = digits(buf, i + 1, 2);
    const om = digits(buf, i + 4, 2);
    if ((oh | om) < 0) return false;
    offset = (buf[i] === 0x2d ? -1 : 1) * (oh * 60 + om);
  } else {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  p.secs =
    daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset * 60;
  p.nsec = nanos;
  return true;
}

/** The time in ns since the epoch, or undefined when s is no time we know. */
export function parseAnyTime(s: string): bigint | undefined {
  if (s.length === 0 || s.length > 200 || /^\s/.test(s)) return undefined;
  if (/^\d+$/.test(s)) return parseDigits(s);
  // Go's time.String adds a monotonic clock reading; a trailing
  // parenthesized zone comment is ignored.
  s = s.replace(/ m=[+-]\d+\.\d+$/, '').replace(/ \([^()]*\)$/, '');
  const p = new Parts();
  const ok = /^\d/.test(s) ? parseNumeric(s, p) : parseAlpha(s, p);
  if (!ok) return undefined;
  return toNanos(p);
}

/** Strings of digits: Unix seconds (10), ms (13), µs (16), ns (19), or yyyy[mmdd[hhmmss]]. */
function parseDigits(s: string): bigint | undefined {
  switch (s.length) {
    case 19:
      return BigInt.asIntN(64, BigInt(s)) === BigInt(s) ? BigInt(s) : undefined;
    case 16:
      return BigInt(s) * 1000n;
    case 13:
      return BigInt(s) * 1_000_000n;
    case 10:
      return BigInt(s) * 1_000_000_000n;
  }
  const p = new Parts();
  if (s.length === 14 || s.length === 8 || s.length === 4) {
    p.year = Number(s.slice(0, 4));
    p.month = s.length > 4 ? Number(s.slice(4, 6)) : 1;
    p.day = s.length > 4 ? Number(s.slice(6, 8)) : 1;
    if (s.length === 14) {
      p.hour = Number(s.slice(8, 10));
      p.minute = Number(s.slice(10, 12));
      p.second = Number(s.slice(12, 14));
    }
    return toNanos(p);
  }
  return undefined;
}

function toNanos(p: Parts): bigint | undefined {
  if (p.pm !== null) {
    if (p.hour < 1 || p.hour > 12) return undefined;
    if (p.hour === 12) p.hour = 0;
    if (p.pm) p.hour += 12;
  }
  if (p.month < 1 || p.month > 12 || p.day < 1 || p.day > daysIn(p.year, p.month)) return undefined;
  if (p.hour > 23 || p.minute > 59 || p.second > 59) return undefined;
  const offset = p.utc || p.offset === null ? 0 : p.offset;
  const secs =
    daysFromCivil(p.year, p.month, p.day) * 86400 +
    p.hour * 3600 +
    p.minute * 60 +
    p.second -
    offset * 60;
  // Outside int64 the reference's nanosecond count wraps.
  return BigInt.asIntN(64, BigInt(secs) * 1_000_000_000n + BigInt(p.nanos));
}
