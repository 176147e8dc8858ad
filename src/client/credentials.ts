// The credentials file of the lake commands (<configdir>/credentials.json,
// ~/.zed by default), laid out as the reference's client lays it out:
//
//   {
//       "version": 1,
//       "services": {
//           "http://localhost:9867": {
//               "access": "<access token>",
//               "expiration": "2024-05-01T12:00:00Z",
//               "id": "<ID token>",
//               "refresh": "<refresh token>"
//           }
//       }
//   }
//
// keyed by the lake's URL. A file of another version is started afresh. It
// is written whole (a temporary file renamed over it), readable by its
// owner only, in a directory only its owner can enter.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const VERSION = 1;

/** A lake's tokens (the reference's auth0.Tokens). */
export interface Tokens {
  access: string;
  /** When the access token expires (RFC 3339); Go's zero time when unknown. */
  expiration: string;
  id: string;
  refresh: string;
}

/** Go's zero time.Time, as its JSON encoding writes it. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** A time as Go's RFC3339Nano writes it in UTC (no trailing zeros in the fraction). */
export function goTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

interface Credentials {
  version: number;
  services: Record<string, Tokens>;
}

function fresh(): Credentials {
  return { version: VERSION, services: {} };
}

/** One token set as read from the file: strings where the file has them. */
function tokensOf(v: unknown): Tokens {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const s = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : '');
  return {
    access: s('access'),
    expiration: s('expiration') || ZERO_TIME,
    id: s('id'),
    refresh: s('refresh'),
  };
}

export class CredentialStore {
  constructor(readonly path: string) {}

  /** The tokens stored for the lake, or undefined. Throws when the file cannot be read. */
  tokens(lake: string): Tokens | undefined {
    const t = this.load().services[lake];
    return t ? { ...t } : undefined;
  }

  setTokens(lake: string, tokens: Tokens): void {
    const creds = this.load();
    creds.services[lake] = tokens;
    this.save(creds);
  }

  removeTokens(lake: string): void {
    const creds = this.load();
    delete creds.services[lake];
    this.save(creds);
  }

  private load(): Credentials {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return fresh();
      throw e;
    }
    const doc = JSON.parse(text) as { version?: unknown; services?: unknown };
    if (!doc || typeof doc !== 'object' || doc.version !== VERSION) return fresh();
    const services: Record<string, Tokens> = {};
    if (doc.services && typeof doc.services === 'object') {
      for (const [k, v] of Object.entries(doc.services)) services[k] = tokensOf(v);
    }
    return { version: VERSION, services };
  }

  private save(creds: Credentials): void {
    mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
    // Go writes map keys sorted, four spaces of indent, and a newline.
    const services: Record<string, Tokens> = {};
    for (const k of Object.keys(creds.services).sort()) {
      const t = creds.services[k];
      services[k] = { access: t.access, expiration: t.expiration, id: t.id, refresh: t.refresh };
    }
    const text = JSON.stringify({ version: creds.version, services }, null, 4) + '\n';
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
