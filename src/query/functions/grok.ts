// grok(pattern, s [, definitions]): parses s with a Grok pattern into a
// record of strings (a function of the reference's later releases).
//
// A pattern is a regular expression in which %{NAME} stands for the named
// pattern NAME and %{NAME:field} also captures what it matched as a field
// (a third part, a type, is accepted and ignored). Named patterns nest;
// fields named inside a named pattern are fields of the result too, unless
// the enclosing pattern names a field the same. Fields appear in the order
// of their groups; a field named twice keeps its last match; fields whose
// groups did not take part in the match are left out.

import { TypeRecord, TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder } from '../../zed/zcode';
import { wrapError } from '../expr/errors';
import { compileRegexp, RegexpError } from '../expr/regexp';
import { Scratch } from '../expr/scratch';
import { isString, stringOf } from './strings';
import { registerFunction, valueFunction } from './registry';

class GrokError extends Error {}

/** Number of capturing groups that open in regexp source src. */
export function countGroups(src: string): number {
  let n = 0;
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (src[i + 1] === '^') i++;
      if (src[i + 1] === ']') i++;
      continue;
    }
    if (c !== '(') continue;
    if (src[i + 1] !== '?') n++;
    else if (src[i + 2] === 'P' && src[i + 3] === '<') n++;
    else if (src[i + 2] === '<' && src[i + 3] !== '=' && src[i + 3] !== '!') n++;
  }
  return n;
}

const REF = /%\{(\w+)(?::([\w[\].]+)(?::(\w+))?)?\}/g;

/** A compiled pattern: its expanded source and the group index of each field. */
interface Compiled {
  src: string;
  groups: number;
  fields: Map<string, number>;
}

/** A set of named patterns (the base ones plus a call's definitions). */
export class GrokHost {
  private readonly exprs = new Map<string, string>();
  private readonly compiled = new Map<string, Compiled>();

  constructor(base?: GrokHost) {
    if (base !== undefined) for (const [k, v] of base.exprs) this.exprs.set(k, v);
  }

  add(name: string, expr: string): void {
    if (name === '') throw new GrokError('an empty name');
    if (expr === '') throw new GrokError('an empty expression');
    if (this.exprs.has(name)) throw new GrokError('the pattern already exist');
    this.expand(expr, 0);
    this.exprs.set(name, expr);
  }

  /** Adds the `NAME expression` lines of text (other lines are ignored). */
  addLines(text: string): void {
    for (const line of text.split(/\r?\n/)) {
      const m = /^(\w+)\s+(.+)$/.exec(line);
      if (m) this.add(m[1], m[2]);
    }
  }

  private named(name: string, depth: number): Compiled {
    let c = this.compiled.get(name);
    if (c === undefined) {
      const expr = this.exprs.get(name);
      if (expr === undefined) throw new GrokError("pattern doesn't exist");
      c = this.expand(expr, depth + 1);
      this.compiled.set(name, c);
    }
    return c;
  }

  /** Expands the %{...} references of expr. */
  expand(expr: string, depth = 0): Compiled {
    if (depth > 100) throw new GrokError('patterns nest too deeply');
    const refs = [...expr.matchAll(REF)];
    const direct = new Set<string>();
    for (const r of refs) {
      if (!this.exprs.has(r[1])) throw new GrokError(`the '${r[1]}' pattern doesn't exist`);
      if (r[2] !== undefined) direct.add(r[2]);
    }
    const fields = new Map<string, number>();
    let src = '';
    let groups = 0;
    let last = 0;
    for (const r of refs) {
      const text = expr.slice(last, r.index);
      groups += countGroups(text);
      const sub = this.named(r[1], depth);
      const at = groups + 1;
      if (r[2] !== undefined) fields.set(r[2], at);
      for (const [k, v] of sub.fields) if (!direct.has(k)) fields.set(k, at + v);
      src += text + '(' + sub.src + ')';
      groups += sub.groups + 1;
      last = r.index + r[0].length;
    }
    const tail = expr.slice(last);
    src += tail;
    groups += countGroups(tail);
    try {
      compileRegexp(src);
    } catch (e) {
      if (e instanceof RegexpError) throw new GrokError(e.message);
      throw e;
    }
    return { src, groups, fields };
  }
}

/** A pattern ready to match: its regexp and field names by group index. */
export class GrokPattern {
  readonly re: RegExp;
  readonly names: (string | undefined)[] = [];

  constructor(c: Compiled) {
    this.re = compileRegexp(c.src);
    for (const [k, v] of c.fields) this.names[v] = k;
  }

  /** The fields and values of a match, or null when s does not match. */
  parse(s: string): { keys: string[]; vals: string[] } | null {
    const m = this.re.exec(s);
    if (m === null) return null;
    const keys: string[] = [];
    const vals: string[] = [];
    for (let i = 1; i < m.length; i++) {
      const k = this.names[i];
      if (k === undefined || m[i] === undefined) continue;
      keys.push(k);
      vals.push(m[i]);
    }
    return { keys, vals };
  }
}

let baseHost: GrokHost | undefined;

/** The host holding the base patterns. */
export function grokBase(): GrokHost {
  if (baseHost === undefined) {
    baseHost = new GrokHost();
    for (const [name, expr] of BASE_PATTERNS) baseHost.add(name, expr);
  }
  return baseHost;
}

registerFunction(
  'grok',
  valueFunction(2, 3, ({ zctx }) => {
    const hosts = new Map<string, GrokHost | string>();
    const patterns = new Map<GrokHost, Map<string, GrokPattern | string>>();
    const types = new Map<string, TypeRecord>();
    const b = new Builder(256);
    const out = new Scratch();
    const fail = (msg: string, v: Value) => wrapError(zctx, `grok(): ${msg}`, v);
    return (args) => {
      const [p, s] = args;
      const defs = args.length === 3 ? args[2] : null;
      if (defs !== null && !isString(defs))
        return fail('definitions argument must be a string', defs);
      if (!isString(p)) return fail('pattern argument must be a string', p);
      if (!isString(s)) return fail('input argument must be a string', s);
      const defText = defs === null ? '' : stringOf(defs);
      let host = hosts.get(defText);
      if (host === undefined) {
        try {
          const h = new GrokHost(grokBase());
          h.addLines(defText);
          host = h;
        } catch (e) {
          if (!(e instanceof GrokError)) throw e;
          host = e.message;
        }
        hosts.set(defText, host);
      }
      if (typeof host === 'string') return fail(host, defs!);
      let byText = patterns.get(host);
      if (byText === undefined) patterns.set(host, (byText = new Map()));
      const ptext = stringOf(p);
      let pat = byText.get(ptext);
      if (pat === undefined) {
        try {
          if (ptext === '') throw new GrokError('an empty expression');
          pat = new GrokPattern(host.expand(ptext));
        } catch (e) {
          if (!(e instanceof GrokError)) throw e;
          pat = e.message;
        }
        byText.set(ptext, pat);
      }
      if (typeof pat === 'string') return fail(pat, p);
      const r = pat.parse(stringOf(s));
      if (r === null) return fail('value does not match pattern', s);
      const key = r.keys.join('\u0000');
      let t = types.get(key);
      if (t === undefined) {
        t = zctx.lookupTypeRecord(r.keys.map((k) => ({ name: k, type: TypeString })));
        types.set(key, t);
      }
      b.reset();
      for (const v of r.vals) b.appendBytes(Buffer.from(v, 'utf8'));
      return out.view(t, b.buf, 0, b.len);
    };
  }),
);

// The base patterns: the customary Grok library (as Logstash defines it)
// in RE2 syntax, and the layouts of Go's time package.
const BASE_PATTERNS: [string, string][] = [
  ['USERNAME', '[a-zA-Z0-9._-]+'],
  ['USER', '%{USERNAME}'],
  ['EMAILLOCALPART', '[a-zA-Z][a-zA-Z0-9_.+-=:]+'],
  ['HOSTNAME', '\\b[0-9A-Za-z][0-9A-Za-z-]{0,62}(?:\\.[0-9A-Za-z][0-9A-Za-z-]{0,62})*(\\.?|\\b)'],
  ['EMAILADDRESS', '%{EMAILLOCALPART}@%{HOSTNAME}'],
  ['HTTPDUSER', '%{EMAILADDRESS}|%{USER}'],
  ['INT', '[+-]?(?:[0-9]+)'],
  ['BASE10NUM', '[+-]?(?:(?:[0-9]+(?:\\.[0-9]+)?)|(?:\\.[0-9]+))'],
  ['NUMBER', '%{BASE10NUM}'],
  ['BASE16NUM', '[+-]?(?:0x)?(?:[0-9A-Fa-f]+)'],
  ['BASE16FLOAT', '\\b[+-]?(?:0x)?(?:(?:[0-9A-Fa-f]+(?:\\.[0-9A-Fa-f]*)?)|(?:\\.[0-9A-Fa-f]+))\\b'],
  ['POSINT', '\\b[1-9][0-9]*\\b'],
  ['NONNEGINT', '\\b[0-9]+\\b'],
  ['WORD', '\\b\\w+\\b'],
  ['NOTSPACE', '\\S+'],
  ['SPACE', '\\s*'],
  ['DATA', '.*?'],
  ['GREEDYDATA', '.*'],
  ['QUOTEDSTRING', '"(?:[^"\\\\]*(?:\\\\.[^"\\\\]*)*)"|\'(?:[^\'\\\\]*(?:\\\\.[^\'\\\\]*)*)\''],
  ['UUID', '[A-Fa-f0-9]{8}-(?:[A-Fa-f0-9]{4}-){3}[A-Fa-f0-9]{12}'],
  ['CISCOMAC', '(?:[A-Fa-f0-9]{4}\\.){2}[A-Fa-f0-9]{4}'],
  ['WINDOWSMAC', '(?:[A-Fa-f0-9]{2}-){5}[A-Fa-f0-9]{2}'],
  ['COMMONMAC', '(?:[A-Fa-f0-9]{2}:){5}[A-Fa-f0-9]{2}'],
  ['MAC', '%{CISCOMAC}|%{WINDOWSMAC}|%{COMMONMAC}'],
  [
    'IPV6',
    '(?:(?:[0-9A-Fa-f]{1,4}:){7}(?:[0-9A-Fa-f]{1,4}|:)|(?:[0-9A-Fa-f]{1,4}:){6}(?::[0-9A-Fa-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3})|:)|(?:[0-9A-Fa-f]{1,4}:){5}(?:(?::[0-9A-Fa-f]{1,4}){1,2}|:(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3})|:)|(?:[0-9A-Fa-f]{1,4}:){4}(?:(?::[0-9A-Fa-f]{1,4}){1,3}|(?::[0-9A-Fa-f]{1,4})?:(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3})|:)|(?:[0-9A-Fa-f]{1,4}:){3}(?:(?::[0-9A-Fa-f]{1,4}){1,4}|(?::[0-9A-Fa-f]{1,4}){0,2}:(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3})|:)|(?:[0-9A-Fa-f]{1,4}:){2}(?:(?::[0-9A-Fa-f]{1,4}){1,5}|(?::[0-9A-Fa-f]{1,4}){0,3}:(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3})|:)|(?:[0-9A-Fa-f]{1,4}:){1}(?:(?::[0-9A-Fa-f]{1,4}){1,6}|(?::[0-9A-Fa-f]{1,4}){0,4}:(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3})|:)|:(?:(?::[0-9A-Fa-f]{1,4}){1,7}|(?::[0-9A-Fa-f]{1,4}){0,5}:(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3})|:))(?:%.+)?',
  ],
  [
    'IPV4',
    '(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)',
  ],
  ['IP', '%{IPV6}|%{IPV4}'],
  ['IPORHOST', '%{IP}|%{HOSTNAME}'],
  ['HOSTPORT', '%{IPORHOST}:%{POSINT}'],
  ['UNIXPATH', '(/[\\w_%!$@:.,-]?/?)(\\S+)?'],
  ['TTY', '/dev/(?:pts|tty(?:[pq])?)(?:\\w+)?/?(?:[0-9]+)'],
  ['WINPATH', '(?:[A-Za-z]:|\\\\)(?:\\\\[^\\\\?*]*)+'],
  ['PATH', '%{UNIXPATH}|%{WINPATH}'],
  ['URIPROTO', '[A-Za-z]+(?:\\+[A-Za-z+]+)?'],
  ['URIHOST', '%{IPORHOST}(?::%{POSINT:port})?'],
  ['URIPATH', "(?:/[A-Za-z0-9$.+!*'(){},~:;=@#%_\\-]*)+"],
  ['URIPARAM', "\\?[A-Za-z0-9$.+!*'|(){},~@#%&/=:;_?\\-\\[\\]<>]*"],
  ['URIPATHPARAM', '%{URIPATH}(?:%{URIPARAM})?'],
  ['URI', '%{URIPROTO}://(?:%{USER}(?::[^@]*)?@)?(?:%{URIHOST})?(?:%{URIPATHPARAM})?'],
  [
    'MONTH',
    '\\b(?:[Jj]an(?:uary|uar)?|[Ff]eb(?:ruary|ruar)?|[Mm](?:a|ä)?r(?:ch|z)?|[Aa]pr(?:il)?|[Mm]a(?:y|i)?|[Jj]un(?:e|i)?|[Jj]ul(?:y)?|[Aa]ug(?:ust)?|[Ss]ep(?:tember)?|[Oo](?:c|k)?t(?:ober)?|[Nn]ov(?:ember)?|[Dd]e(?:c|z)(?:ember)?)\\b',
  ],
  ['MONTHNUM', '(?:0?[1-9]|1[0-2])'],
  ['MONTHNUM2', '(?:0[1-9]|1[0-2])'],
  ['MONTHDAY', '(?:(?:0[1-9])|(?:[12][0-9])|(?:3[01])|[1-9])'],
  [
    'DAY',
    '(?:Mon(?:day)?|Tue(?:sday)?|Wed(?:nesday)?|Thu(?:rsday)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?)',
  ],
  ['YEAR', '(?:\\d\\d){1,2}'],
  ['HOUR', '(?:2[0123]|[01]?[0-9])'],
  ['MINUTE', '(?:[0-5][0-9])'],
  ['SECOND', '(?:(?:[0-5]?[0-9]|60)(?:[:.,][0-9]+)?)'],
  ['TIME', '%{HOUR}:%{MINUTE}(?::%{SECOND})'],
  ['DATE_US', '%{MONTHNUM}[/-]%{MONTHDAY}[/-]%{YEAR}'],
  ['DATE_EU', '%{MONTHDAY}[./-]%{MONTHNUM}[./-]%{YEAR}'],
  ['DATE_X', '%{YEAR}/%{MONTHNUM2}/%{MONTHDAY}'],
  ['ISO8601_TIMEZONE', '(?:Z|[+-]%{HOUR}(?::?%{MINUTE}))'],
  ['ISO8601_SECOND', '(?:%{SECOND}|60)'],
  [
    'TIMESTAMP_ISO8601',
    '%{YEAR}-%{MONTHNUM}-%{MONTHDAY}[T ]%{HOUR}:?%{MINUTE}(?::?%{SECOND})?%{ISO8601_TIMEZONE}?',
  ],
  ['DATE', '%{DATE_US}|%{DATE_EU}|%{DATE_X}'],
  ['DATESTAMP', '%{DATE}[- ]%{TIME}'],
  ['TZ', '(?:[PMCE][SD]T|UTC)'],
  ['NUMTZ', '[+-]\\d{4}'],
  ['DATESTAMP_RFC822', '%{DAY} %{MONTH} %{MONTHDAY} %{YEAR} %{TIME} %{TZ}'],
  ['DATESTAMP_RFC2822', '%{DAY}, %{MONTHDAY} %{MONTH} %{YEAR} %{TIME} %{ISO8601_TIMEZONE}'],
  ['DATESTAMP_OTHER', '%{DAY} %{MONTH} %{MONTHDAY} %{TIME} %{TZ} %{YEAR}'],
  ['DATESTAMP_EVENTLOG', '%{YEAR}%{MONTHNUM2}%{MONTHDAY}%{HOUR}%{MINUTE}%{SECOND}'],
  ['HTTPDERROR_DATE', '%{DAY} %{MONTH} %{MONTHDAY} %{TIME} %{YEAR}'],
  ['ANSIC', '%{DAY} %{MONTH} [_123]\\d %{TIME} %{YEAR}'],
  ['UNIXDATE', '%{DAY} %{MONTH} [_123]\\d %{TIME} %{TZ} %{YEAR}'],
  ['RUBYDATE', '%{DAY} %{MONTH} [0-3]\\d %{TIME} %{NUMTZ} %{YEAR}'],
  ['RFC822Z', '[0-3]\\d %{MONTH} %{YEAR} %{TIME} %{NUMTZ}'],
  ['RFC850', '%{DAY}, [0-3]\\d-%{MONTH}-%{YEAR} %{TIME} %{TZ}'],
  ['RFC1123', '%{DAY}, [0-3]\\d %{MONTH} %{YEAR} %{TIME} %{TZ}'],
  ['RFC1123Z', '%{DAY}, [0-3]\\d %{MONTH} %{YEAR} %{TIME} %{NUMTZ}'],
  ['RFC3339', '%{YEAR}-[01]\\d-[0-3]\\dT%{TIME}%{ISO8601_TIMEZONE}'],
  ['RFC3339NANO', '%{YEAR}-[01]\\d-[0-3]\\dT%{TIME}\\.\\d{9}%{ISO8601_TIMEZONE}'],
  ['KITCHEN', '\\d{1,2}:\\d{2}(?:AM|PM|am|pm)'],
  ['SYSLOGTIMESTAMP', '%{MONTH} +%{MONTHDAY} %{TIME}'],
  ['PROG', '[\\x21-\\x5a\\x5c\\x5e-\\x7e]+'],
  ['SYSLOGPROG', '%{PROG:program}(?:\\[%{POSINT:pid}\\])?'],
  ['SYSLOGHOST', '%{IPORHOST}'],
  ['SYSLOGFACILITY', '<%{NONNEGINT:facility}.%{NONNEGINT:priority}>'],
  ['HTTPDATE', '%{MONTHDAY}/%{MONTH}/%{YEAR}:%{TIME} %{INT}'],
  ['QS', '%{QUOTEDSTRING}'],
  [
    'LOGLEVEL',
    '(?:[Aa]lert|ALERT|[Tt]race|TRACE|[Dd]ebug|DEBUG|[Nn]otice|NOTICE|[Ii]nfo|INFO|[Ww]arn?(?:ing)?|WARN?(?:ING)?|[Ee]rr?(?:or)?|ERR?(?:OR)?|[Cc]rit?(?:ical)?|CRIT?(?:ICAL)?|[Ff]atal|FATAL|[Ss]evere|SEVERE|EMERG(?:ENCY)?|[Ee]merg(?:ency)?)',
  ],
  [
    'SYSLOGBASE',
    '%{SYSLOGTIMESTAMP:timestamp} (?:%{SYSLOGFACILITY} )?%{SYSLOGHOST:logsource} %{SYSLOGPROG}:',
  ],
  [
    'COMMONAPACHELOG',
    '%{IPORHOST:clientip} %{HTTPDUSER:ident} %{USER:auth} \\[%{HTTPDATE:timestamp}\\] "(?:%{WORD:verb} %{NOTSPACE:request}(?: HTTP/%{NUMBER:httpversion})?|%{DATA:rawrequest})" %{NUMBER:response} (?:%{NUMBER:bytes}|-)',
  ],
  ['COMBINEDAPACHELOG', '%{COMMONAPACHELOG} %{QS:referrer} %{QS:agent}'],
  [
    'HTTPD20_ERRORLOG',
    '\\[%{HTTPDERROR_DATE:timestamp}\\] \\[%{LOGLEVEL:loglevel}\\] (?:\\[client %{IPORHOST:clientip}\\] ){0,1}%{GREEDYDATA:errormsg}',
  ],
  [
    'HTTPD24_ERRORLOG',
    '\\[%{HTTPDERROR_DATE:timestamp}\\] \\[%{WORD:module}:%{LOGLEVEL:loglevel}\\] \\[pid %{POSINT:pid}:tid %{NUMBER:tid}\\]( \\(%{POSINT:proxy_errorcode}\\)%{DATA:proxy_errormessage}:)?( \\[client %{IPORHOST:client}:%{POSINT:clientport}\\])? %{DATA:errorcode}: %{GREEDYDATA:message}',
  ],
  ['HTTPD_ERRORLOG', '%{HTTPD20_ERRORLOG}|%{HTTPD24_ERRORLOG}'],
];
