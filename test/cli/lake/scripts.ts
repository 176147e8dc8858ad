// Runs scripts written for the reference's `zed` client (the command name
// changed to `zlake`) with bash, in a new directory holding the given files.

import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../client/helpers';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** The directory the script ran in. */
  dir: string;
}

/** Runs text with bin (from zlakeBin) first on PATH and env added to the environment. */
export async function runScript(
  bin: string,
  text: string,
  env: Record<string, string>,
  files: Record<string, string> = {},
): Promise<Run> {
  const dir = tempDir('zlake-script-');
  for (const [name, data] of Object.entries(files)) await fsp.writeFile(path.join(dir, name), data);
  const body = text.replace(/\bzed /g, 'zlake ');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', body], {
      cwd: dir,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        ZED_HEAD_DIR: dir,
        ZED_USER: 'testuser',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, dir }));
  });
}
