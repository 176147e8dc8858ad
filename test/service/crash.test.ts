import { openLake } from '../../src/backend/open';
// kill -9 of `zlake serve` during loads: after a restart every
// acknowledged commit is there, nothing half-done is visible, and the lake
// takes more loads.

import { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { spawnTs } from '../lake/spawn-ts';
import { call, sleep } from './helpers';

async function startServer(
  lake: string,
  portfile: string,
): Promise<{ child: ChildProcess; base: string }> {
  rmSync(portfile, { force: true });
  const child = spawnTs(path.join(__dirname, 'serve-child.ts'), [
    '-l',
    '127.0.0.1:0',
    '-lake',
    lake,
    '-portfile',
    portfile,
    '-log.level',
    'warn',
  ]);
  child.stdout?.resume();
  for (let i = 0; i < 200 && !existsSync(portfile); i++) await sleep(50);
  if (!existsSync(portfile)) throw new Error('server did not start');
  return { child, base: `http://127.0.0.1:${readFileSync(portfile, 'utf8')}` };
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

test('kill -9 during loads loses no acknowledged commit and shows no partial one', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'zlake-crash-'));
  const lake = path.join(dir, 'lake');
  const portfile = path.join(dir, 'port');
  try {
    let { child, base } = await startServer(lake, portfile);
    let r = await call(base, 'POST', '/pool', {
      body: '{"name":"crash","layout":{"keys":[["n"]]}}',
    });
    expect(r.status).toBe(200);
    const ROWS = 200;
    const acked = new Map<string, number>();
    let next = 0;
    // Writers that load until the server dies.
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const n = next++;
        const body = Array.from({ length: ROWS }, (_, k) => `{"n":${n},"k":${k}}`).join('\n');
        try {
          const res = await call(base, 'POST', '/pool/crash/branch/main', {
            body,
            headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          });
          if (res.status === 200) acked.set((res.json() as { commit: string }).commit, n);
        } catch {
          return; // connection refused or reset: the server is gone
        }
      }
    };
    // And a big streaming load in flight at the moment of the kill.
    const streaming = new Promise<void>((resolve) => {
      const req = http.request(`${base}/pool/crash/branch/main`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      });
      req.on('error', () => resolve());
      req.on('response', () => resolve());
      let i = 0;
      const pump = () => {
        if (stop) return;
        req.write(`{"n":-1,"k":${i++}}\n`.repeat(1000), () => setTimeout(pump, 5));
      };
      pump();
    });
    const writers = Promise.all([writer(), writer(), writer(), writer()]);
    await sleep(1500);
    child.kill('SIGKILL');
    await killed(child);
    stop = true;
    await writers;
    await streaming;
    expect(acked.size).toBeGreaterThan(0);

    ({ child, base } = await startServer(lake, portfile));
    try {
      r = await call(base, 'GET', '/pool/crash/branch/main', {
        headers: { Accept: 'application/json' },
      });
      expect(r.status).toBe(200);
      // The restarted server takes loads.
      const extra = Array.from({ length: ROWS }, (_, k) => `{"n":100000,"k":${k}}`).join('\n');
      r = await call(base, 'POST', '/pool/crash/branch/main', {
        body: extra,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      });
      expect(r.status).toBe(200);
      acked.set((r.json() as { commit: string }).commit, 100000);
    } finally {
      child.kill('SIGTERM');
      await killed(child);
    }
    // Read the lake directly (the server holds it while it runs).
    const { TypeContext } = await import('../../src/zed/context');
    const l = await openLake(lake);
    try {
      const log = await l.log('crash', 'main');
      const inLog = new Set(log.map((c) => c.id.toHex()));
      for (const id of acked.keys()) expect(inLog.has(id)).toBe(true);
      const scan = await l.scan('crash', 'main', { ctx: new TypeContext() });
      let values = 0;
      for (let b = await scan.pull(); b; b = await scan.pull()) values += b.length;
      // The streaming load was never acknowledged, so never committed:
      // every commit holds exactly ROWS values.
      expect(values).toBe(log.length * ROWS);
    } finally {
      await l.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
