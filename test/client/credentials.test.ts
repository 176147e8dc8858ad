// The credentials file: the reference's layout, per-lake entries, a fresh
// start on another version, and times written as Go writes them.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CredentialStore, goTime, ZERO_TIME } from '../../src/client';

const dir = () => mkdtempSync(path.join(tmpdir(), 'zlake-creds-'));

test('times are RFC 3339 in UTC with no trailing zeros, as Go writes them', () => {
  expect(goTime(Date.UTC(2024, 4, 1, 12, 0, 0, 0))).toBe('2024-05-01T12:00:00Z');
  expect(goTime(Date.UTC(2024, 4, 1, 12, 0, 0, 120))).toBe('2024-05-01T12:00:00.12Z');
  expect(goTime(Date.UTC(2024, 4, 1, 12, 0, 0, 7))).toBe('2024-05-01T12:00:00.007Z');
});

test('a missing file has no tokens; tokens are stored and removed per lake', () => {
  const s = new CredentialStore(path.join(dir(), 'sub', 'credentials.json'));
  expect(s.tokens('http://a')).toBeUndefined();
  s.setTokens('http://b', { access: 'B', expiration: ZERO_TIME, id: '', refresh: 'r' });
  s.setTokens('http://a', { access: 'A', expiration: ZERO_TIME, id: 'i', refresh: '' });
  expect(s.tokens('http://a')).toEqual({
    access: 'A',
    expiration: ZERO_TIME,
    id: 'i',
    refresh: '',
  });
  // Keys sorted, as Go writes a map.
  expect(Object.keys(JSON.parse(readFileSync(s.path, 'utf8')).services)).toEqual([
    'http://a',
    'http://b',
  ]);
  s.removeTokens('http://a');
  expect(s.tokens('http://a')).toBeUndefined();
  expect(s.tokens('http://b')?.access).toBe('B');
});

test('a file of another version starts afresh; a broken one is an error', () => {
  const p = path.join(dir(), 'credentials.json');
  writeFileSync(p, JSON.stringify({ version: 2, services: { 'http://a': { access: 'x' } } }));
  const s = new CredentialStore(p);
  expect(s.tokens('http://a')).toBeUndefined();
  writeFileSync(p, '{"version": 1, "services": {"http://a": {"access": "x"}}}');
  expect(s.tokens('http://a')).toEqual({ access: 'x', expiration: ZERO_TIME, id: '', refresh: '' });
  writeFileSync(p, '{"version": 1,');
  expect(() => s.tokens('http://a')).toThrow();
});
