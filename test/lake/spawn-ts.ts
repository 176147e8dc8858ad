// Runs a TypeScript file in a child Node process (for crash tests: the
// child is killed with SIGKILL), TypeScript compiled on require (tsRequire).

import { ChildProcessByStdio, spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { tsRequire } from '../helpers/ts-bootstrap';

const bootstrap = `${tsRequire}
const file = require('path').resolve(process.argv[1]);
process.argv.splice(1, 1);
require(file);
`;

export function spawnTs(file: string, args: string[]): ChildProcessByStdio<null, Readable, null> {
  return spawn(process.execPath, ['-e', bootstrap, file, ...args], {
    cwd: process.cwd(),
    // Explicitly: jest gives each test file its own copy of process.env.
    env: process.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/** Calls onLine with each line the child writes to stdout. */
export function onLines(
  child: ChildProcessByStdio<null, Readable, null>,
  onLine: (line: string) => void,
): void {
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    rest += chunk;
    let i: number;
    while ((i = rest.indexOf('\n')) >= 0) {
      onLine(rest.slice(0, i));
      rest = rest.slice(i + 1);
    }
  });
}

/**
 * Resolves when pred holds for a line of the child's output; rejects if the
 * child exits first or after timeoutMs.
 */
export function waitForLine(
  child: ChildProcessByStdio<null, Readable, null>,
  pred: (line: string) => boolean,
  timeoutMs = 20000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('child did not get there in time')), timeoutMs);
    const done = (err?: Error) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve();
    };
    const onExit = (code: number | null) => done(new Error(`child exited early (${code})`));
    child.once('exit', onExit);
    onLines(child, (l) => {
      if (pred(l)) done();
    });
  });
}

/** Resolves once the child has exited and its output is all read. */
export function exited(child: ChildProcessByStdio<null, Readable, null>): Promise<void> {
  return new Promise((resolve) => {
    if (child.stdout.closed && (child.exitCode !== null || child.signalCode !== null)) resolve();
    else child.once('close', () => resolve());
  });
}
