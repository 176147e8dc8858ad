// CORS, with the reference's rules (it uses rs/cors): allowed origins from
// -cors.origin (none given: every origin, answered with "*"; an origin may
// hold one "*" wildcard, e.g. http://*.example.com), credentials allowed,
// preflight requests answered without reaching the handlers.

import { NextFunction, Request, Response } from 'express';

const ALLOWED_METHODS = ['HEAD', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
// The reference's list, plus the headers zlake's own clients send.
const ALLOWED_HEADERS = [
  'Authorization',
  'Accept',
  'Content-Type',
  'X-Requested-With',
  'Origin',
  'Zed-Commit',
  'X-Request-Id',
  'Content-Encoding',
].map((h) => h.toLowerCase());

/** Go's http.CanonicalHeaderKey: each dash-separated word capitalised. */
function canonicalHeader(h: string): string {
  return h
    .toLowerCase()
    .split('-')
    .map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w))
    .join('-');
}

interface Pattern {
  prefix: string;
  suffix: string;
  exact: boolean;
}

export function corsMiddleware(origins: string[]) {
  let all = origins.length === 0;
  const patterns: Pattern[] = [];
  for (const o of origins) {
    const l = o.toLowerCase();
    if (l === '*') {
      all = true;
      continue;
    }
    const star = l.indexOf('*');
    if (star < 0) patterns.push({ prefix: l, suffix: '', exact: true });
    else patterns.push({ prefix: l.slice(0, star), suffix: l.slice(star + 1), exact: false });
  }
  const allowed = (origin: string): boolean => {
    if (all) return true;
    const o = origin.toLowerCase();
    return patterns.some((p) =>
      p.exact
        ? o === p.prefix
        : o.length >= p.prefix.length + p.suffix.length &&
          o.startsWith(p.prefix) &&
          o.endsWith(p.suffix),
    );
  };

  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    const reqMethod = req.headers['access-control-request-method'];
    if (req.method === 'OPTIONS' && typeof reqMethod === 'string' && reqMethod !== '') {
      res.vary('Origin');
      res.vary('Access-Control-Request-Method');
      res.vary('Access-Control-Request-Headers');
      const method = reqMethod.toUpperCase();
      const rawHeaders = req.headers['access-control-request-headers'];
      const headers = (typeof rawHeaders === 'string' ? rawHeaders.split(',') : [])
        .map((h) => h.trim())
        .filter((h) => h !== '')
        .map(canonicalHeader);
      const ok =
        typeof origin === 'string' &&
        origin !== '' &&
        allowed(origin) &&
        (method === 'OPTIONS' || ALLOWED_METHODS.includes(method)) &&
        headers.every((h) => ALLOWED_HEADERS.includes(h.toLowerCase()));
      if (ok) {
        // In the order Go's server writes them (sorted by name), so a
        // script that greps the headers sees the reference's lines.
        res.setHeader('Access-Control-Allow-Credentials', 'true');
        if (headers.length > 0) res.setHeader('Access-Control-Allow-Headers', headers.join(', '));
        res.setHeader('Access-Control-Allow-Methods', method);
        res.setHeader('Access-Control-Allow-Origin', all ? '*' : origin);
      }
      res.status(204).end();
      return;
    }
    res.vary('Origin');
    if (
      typeof origin === 'string' &&
      origin !== '' &&
      allowed(origin) &&
      (req.method === 'OPTIONS' || ALLOWED_METHODS.includes(req.method))
    ) {
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Allow-Origin', all ? '*' : origin);
      res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id');
    }
    next();
  };
}
