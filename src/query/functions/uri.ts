// parse_uri: a URI's parts as a record, split as Go's net/url.Parse splits
// them (the reference's behaviour, including its error texts).

import { goQuote } from '../../formats/zson/gotext';
import { TypeContext } from '../../zed/context';
import { TypeRecord, TypeString, TypeUint16 } from '../../zed/types';
import { Builder } from '../../zed/zcode';
import { normalizeChildren } from '../expr/containers';
import { newError } from '../expr/errors';
import { Scratch } from '../expr/scratch';
import { isString } from './strings';
import { registerFunction, valueFunction } from './registry';

/** The parts of a URL; null where Go's URL leaves them empty. */
export interface URIParts {
  scheme: string;
  opaque: string;
  user: string | null;
  password: string | null;
  host: string;
  path: string;
  rawQuery: string;
  fragment: string;
}

class URIError extends Error {}

const HEX = /^[0-9a-fA-F]{2}$/;

type Mode = 'path' | 'host' | 'zone' | 'userinfo' | 'query' | 'fragment';

/** Go's shouldEscape for the characters that matter when validating hosts. */
function hostCharOK(c: string): boolean {
  return /[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"]/.test(c);
}

/** Go's url.unescape: %XX sequences decoded, '+' as space in query mode. */
function unescape(s: string, mode: Mode): string {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%') {
      n++;
      const h = s.slice(i + 1, i + 3);
      if (!HEX.test(h)) {
        throw new URIError(`invalid URL escape ${goQuote(s.slice(i, Math.min(i + 3, s.length)))}`);
      }
      if (mode === 'host' && parseInt(h[0], 16) < 8 && s.slice(i, i + 3) !== '%25') {
        throw new URIError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      i += 2;
    } else if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && !hostCharOK(c)) {
      throw new URIError(`invalid character ${goQuote(c)} in host name`);
    }
  }
  if (n === 0 && !(mode === 'query' && s.includes('+'))) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%') {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === '+' && mode === 'query') {
      bytes.push(0x20);
    } else {
      for (const b of Buffer.from(c, 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new URIError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort))
      throw new URIError(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      const h1 = unescape(host.slice(0, zone), 'host');
      const h2 = unescape(host.slice(zone, i), 'zone');
      const h3 = unescape(host.slice(i), 'host');
      return h1 + h2 + h3;
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort))
        throw new URIError(`invalid port ${goQuote(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

function validUserinfo(s: string): boolean {
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s.replace(/[^\x00-\x7f]/g, ''));
}

/** Go's url.Parse. */
export function parseURI(raw: string): URIParts {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const frag = hash < 0 ? '' : raw.slice(hash + 1);
  let parts: URIParts;
  try {
    parts = parse(u);
  } catch (e) {
    if (!(e instanceof URIError)) throw e;
    throw new URIError(`parse ${goQuote(u)}: ${e.message}`);
  }
  if (frag !== '') {
    try {
      parts.fragment = unescape(frag, 'fragment');
    } catch (e) {
      if (!(e instanceof URIError)) throw e;
      throw new URIError(`parse ${goQuote(raw)}: ${e.message}`);
    }
  }
  return parts;
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new URIError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function parse(raw: string): URIParts {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new URIError('net/url: invalid control character in URL');
  const p: URIParts = {
    scheme: '',
    opaque: '',
    user: null,
    password: null,
    host: '',
    path: '',
    rawQuery: '',
    fragment: '',
  };
  if (raw === '*') {
    p.path = '*';
    return p;
  }
  const [scheme, afterScheme] = getScheme(raw);
  let rest = afterScheme;
  p.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      p.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (p.scheme !== '') {
      p.opaque = rest;
      return p;
    }
    const slash = rest.indexOf('/');
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(':')) throw new URIError('first path segment in URL cannot contain colon');
  }
  if ((p.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf('@');
    p.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!validUserinfo(userinfo)) throw new URIError('net/url: invalid userinfo');
      const colon = userinfo.indexOf(':');
      if (colon < 0) {
        p.user = unescape(userinfo, 'userinfo');
      } else {
        p.user = unescape(userinfo.slice(0, colon), 'userinfo');
        p.password = unescape(userinfo.slice(colon + 1), 'userinfo');
      }
    }
  }
  p.path = unescape(rest, 'path');
  return p;
}

/** The host without its port (Go's URL.Hostname) and the port (URL.Port). */
function splitHostPort(hostport: string): [string, string] {
  let host = hostport;
  let port = '';
  const colon = hostport.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(hostport.slice(colon))) {
    host = hostport.slice(0, colon);
    port = hostport.slice(colon + 1);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** Go's url.ParseQuery, skipping the pairs it reports errors for. */
export function parseQuery(query: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const part of query.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    let key: string;
    let value: string;
    try {
      key = unescape(eq < 0 ? part : part.slice(0, eq), 'query');
      value = unescape(eq < 0 ? '' : part.slice(eq + 1), 'query');
    } catch (e) {
      if (!(e instanceof URIError)) throw e;
      continue;
    }
    const vs = m.get(key);
    if (vs === undefined) m.set(key, [value]);
    else vs.push(value);
  }
  return m;
}

function uriType(zctx: TypeContext): TypeRecord {
  const queryType = zctx.lookupTypeMap(TypeString, zctx.lookupTypeArray(TypeString));
  return zctx.lookupTypeRecord([
    { name: 'scheme', type: TypeString },
    { name: 'opaque', type: TypeString },
    { name: 'user', type: TypeString },
    { name: 'password', type: TypeString },
    { name: 'host', type: TypeString },
    { name: 'port', type: TypeUint16 },
    { name: 'path', type: TypeString },
    { name: 'query', type: queryType },
    { name: 'fragment', type: TypeString },
  ]);
}

registerFunction(
  'parse_uri',
  valueFunction(1, 1, ({ zctx }) => {
    const type = uriType(zctx);
    const b = new Builder(256);
    const out = new Scratch();
    const str = (s: string | null) =>
      b.appendBytes(s === null || s === '' ? null : Buffer.from(s, 'utf8'));
    return ([v]) => {
      if (!isString(v) || v.len < 0)
        return newError(zctx, 'parse_uri: non-empty string arg required');
      const s = v.buf.toString('utf8', v.off, v.off + v.len);
      let u: URIParts;
      try {
        u = parseURI(s);
      } catch (e) {
        if (!(e instanceof URIError)) throw e;
        return newError(zctx, `parse_uri: ${e.message} (${goQuote(s)})`);
      }
      const [host, port] = splitHostPort(u.host);
      let portNum: number | null = null;
      if (port !== '') {
        portNum = /^[0-9]+$/.test(port) ? Number(port) : NaN;
        if (!(portNum <= 0xffff)) {
          return newError(zctx, `parse_uri: invalid port: ${port} (${goQuote(s)})`);
        }
      }
      b.reset();
      str(u.scheme);
      str(u.opaque);
      str(u.user);
      // A password is kept even when empty (Go reports it as set).
      b.appendBytes(u.password === null ? null : Buffer.from(u.password, 'utf8'));
      str(host);
      if (portNum === null) b.appendNull();
      else b.appendUint(portNum);
      str(u.path);
      const q = parseQuery(u.rawQuery);
      if (q.size === 0) {
        b.appendNull();
      } else {
        b.beginContainer();
        const start = b.len;
        for (const [k, vals] of q) {
          b.appendBytes(Buffer.from(k, 'utf8'));
          b.beginContainer();
          for (const x of vals) b.appendBytes(Buffer.from(x, 'utf8'));
          b.endContainer();
        }
        // Map entries in the normal form (by key encoding).
        normalizeChildren(b, start, 2);
        b.endContainer();
      }
      str(u.fragment);
      return out.view(type, b.buf, 0, b.len);
    };
  }),
);
