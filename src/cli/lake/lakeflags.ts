// The root flags of the lake commands (the reference's lakeflags and
// commitflags): where the lake is (-lake, ZED_LAKE, default
// http://localhost:9867), which pool and branch to work on (-use, whose
// default is the HEAD the `use` command saved in $ZED_HEAD_DIR or the home
// directory), -q, and the commit message flags.

import { readFileSync, writeFileSync } from 'node:fs';
import { homedir, hostname, userInfo } from 'node:os';
import * as path from 'node:path';
import {
  CommitMessage,
  CredentialStore,
  DEFAULT_LAKE,
  LakeClient,
  StoredTokenRefresher,
} from '../../client';
import { Ksuid } from '../../lake/ksuid';
import { FlagSet } from '../flags';
import { isStorageLocation, LocalService, serveLocal } from './locallake';

const HEAD_FILE = '.zed_head';

/** A pool and a branch or commit ID, as `pool@branch` names them. */
export interface Commitish {
  pool: string;
  branch: string;
}

/** Parses "pool", "pool@branch" or "@branch" (branch may be a commit ID). */
export function parseCommitish(s: string): Commitish {
  if (s === '') throw new Error('empty pool and branch');
  if (s.includes("'"))
    throw new Error('pool and branch names may not contain single quote characters');
  const at = s.lastIndexOf('@');
  return at < 0 ? { pool: s, branch: '' } : { pool: s.slice(0, at), branch: s.slice(at + 1) };
}

/** True when s is a commit or object ID (base62 or 0x hex). */
export function isID(s: string): boolean {
  return Ksuid.parse(s) !== undefined;
}

/** Parses an ID with the reference's error text. */
export function parseID(s: string): Ksuid {
  const id = Ksuid.parse(s);
  if (!id) throw new Error(`invalid ID: ${s}`);
  return id;
}

/**
 * The `from` of a meta-query on a commitish: names quoted, a commit ID
 * bare (`from 'pool'@'main':log`, `from 'pool'@<id>:log`).
 */
export function fromSpec(c: Commitish, meta: string): string {
  const branch = isID(c.branch) ? c.branch : `'${c.branch}'`;
  return `from '${c.pool}'@${branch}${meta ? ':' + meta : ''}`;
}

function headPath(env: NodeJS.ProcessEnv): string {
  let dir = env.ZED_HEAD_DIR || homedir();
  if (dir === '.') dir = '';
  return path.join(dir, HEAD_FILE);
}

/** The saved HEAD ("pool@branch"), or '' when there is none. */
export function readHead(env: NodeJS.ProcessEnv): string {
  try {
    return readFileSync(headPath(env), 'utf8').trim();
  } catch {
    return '';
  }
}

export function writeHead(env: NodeJS.ProcessEnv, pool: string, branch: string): void {
  try {
    writeFileSync(headPath(env), `${pool}@${branch}\n`, { mode: 0o644 });
  } catch (e) {
    throw new Error(`"${HEAD_FILE}": failed to write HEAD: ${(e as Error).message}`);
  }
}

export class LakeFlags {
  private lakeRef: { value: string };
  private use: { value: string };
  private quiet: { value: boolean };
  private version: { value: boolean };
  private configDirRef: { value: string };
  private client?: LakeClient;
  /** The in-process service of a local lake, while a command runs. */
  private local?: LocalService;

  constructor(fs: FlagSet, env: NodeJS.ProcessEnv) {
    this.quiet = fs.bool('q', false, 'quiet mode');
    this.use = fs.string(
      'use',
      readHead(env),
      'commit to use, i.e., pool, pool@branch, or pool@commit',
    );
    this.configDirRef = fs.string(
      'configdir',
      path.join(homedir(), '.zed'),
      'configuration and credentials directory',
    );
    const dflt = env.ZED_LAKE !== undefined ? env.ZED_LAKE : DEFAULT_LAKE;
    this.lakeRef = fs.string('lake', dflt, `lake location (env ZED_LAKE) (default ${dflt})`);
    this.version = fs.bool('version', false, 'print version and exit');
  }

  get isQuiet(): boolean {
    return this.quiet.value;
  }

  /** The -use value (or the saved HEAD it defaults to). */
  get useFlag(): string {
    return this.use.value;
  }

  get showVersion(): boolean {
    return this.version.value;
  }

  /** The lake's URL, without a trailing slash. */
  get lake(): string {
    return this.lakeRef.value.replace(/\/+$/, '');
  }

  /** True when -lake names storage (a directory or s3://) rather than a service. */
  get isLocal(): boolean {
    return this.lake !== '' && isStorageLocation(this.lake);
  }

  /** -configdir: where the credentials file is. */
  get configDir(): string {
    return this.configDirRef.value;
  }

  /** The credentials file of -configdir. */
  authStore(): CredentialStore {
    return new CredentialStore(path.join(this.configDir, 'credentials.json'));
  }

  /**
   * The root flags as arguments, for a command that runs a subcommand
   * (the subcommand parses them afresh).
   */
  carried(): string[] {
    return [
      '-lake',
      this.lake,
      '-configdir',
      this.configDir,
      ...(this.use.value !== '' ? ['-use', this.use.value] : []),
      ...(this.isQuiet ? ['-q'] : []),
    ];
  }

  /**
   * The lake service to talk to (made on first use), sending the access
   * token stored for it, if any, and refreshing it when the service
   * refuses it. A storage location is opened in this process.
   */
  async connect(): Promise<LakeClient> {
    if (this.client) return this.client;
    const url = this.lake;
    if (url === '') {
      throw new Error(
        'lake location must be set (either with the -lake flag or ZED_LAKE environment variable)',
      );
    }
    if (isStorageLocation(url)) {
      this.local = await serveLocal(url);
      this.client = new LakeClient(this.local.url, { local: true });
    } else {
      const store = this.authStore();
      const tokens = store.tokens(url);
      this.client = new LakeClient(
        url,
        tokens ? { token: tokens.access, refresher: new StoredTokenRefresher(store, url) } : {},
      );
    }
    return this.client;
  }

  /** The working pool and branch (-use, else the saved HEAD); branch defaults to main. */
  head(): Commitish {
    const c = parseCommitish(this.use.value);
    if (c.pool === '') throw new Error('pool unspecified');
    if (c.branch === '') c.branch = 'main';
    return c;
  }

  /** The service, the working head and its pool's ID (looked up): what a branch change needs. */
  async working(): Promise<{ client: LakeClient; head: Commitish; pool: string }> {
    const client = await this.connect();
    const head = this.head();
    const pool = (await client.lookupPool(head.pool)).id.toString();
    return { client, head, pool };
  }

  /** The working head, or undefined when none is set. */
  headOrNone(): Commitish | undefined {
    try {
      return this.head();
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    this.client?.close();
    await this.local?.close();
  }
}

/** The user name for commits: $ZED_USER, else user@host. */
function defaultUser(env: NodeJS.ProcessEnv): string {
  if (env.ZED_USER) return env.ZED_USER;
  try {
    const name = userInfo().username;
    if (!name) return '';
    return `${name}@${hostname()}`;
  } catch {
    return '';
  }
}

/** -user, -message and -meta: the author, body and metadata of a commit. */
export class CommitFlags {
  private user: { value: string };
  private message: { value: string };
  private meta: { value: string };

  constructor(fs: FlagSet, env: NodeJS.ProcessEnv) {
    this.user = fs.string('user', defaultUser(env), 'user name for commit message');
    this.message = fs.string('message', '', 'commit message');
    this.meta = fs.string('meta', '', 'application metadata');
  }

  get commitMessage(): CommitMessage {
    return { author: this.user.value, body: this.message.value, meta: this.meta.value };
  }
}
