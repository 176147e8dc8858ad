// Runs scripts written for the reference's `zed` client (the command name
// changed to `zlake`) with bash, in a new directory holding the given files.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { bashScript, Result, tempDir } from '../../client/helpers';

export interface Run extends Result {
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
  const r = await bashScript(text, dir, bin, { ZED_HEAD_DIR: dir, ZED_USER: 'testuser', ...env });
  return { ...r, dir };
}
