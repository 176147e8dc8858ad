// A client of the lake service API: one method per endpoint, with the
// paths, headers and error translations of the reference's Go client
// (api/client), so commands built on it behave as the reference's `zed`
// does against a server. Control requests send JSON and read JSON; queries
// read ZNG with control messages; loads stream any body.

import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sourceFromReadable } from '../formats/io';
import { Ksuid } from '../lake/ksuid';
import { Value } from '../zed/value';
import type { Auth0Details } from './auth0';
import { BodyWriter, Connection, ConnectionOptions, MediaType, urlPath } from './connection';
import { ResponseError } from './errors';
import { valueToJS } from '../formats/json';
import { concatSource, parseErrorText, QueryReader } from './query';

/** A commit's author, message and application metadata (ZSON text). */
export interface CommitMessage {
  author?: string;
  body?: string;
  meta?: string;
}

export interface SortKey {
  order: 'asc' | 'desc';
  keys: string[][];
}

export interface Pool {
  ts: string;
  name: string;
  id: Ksuid;
  layout: SortKey;
  seekStride: number;
  threshold: number;
}

export interface Branch {
  ts: string;
  name: string;
  commit: Ksuid;
}

export interface CommitResult {
  commit: Ksuid;
  warnings: string[];
}

/** A pool and branch (or commit) to work on; query heads may leave both empty. */
export interface Head {
  pool: string;
  branch: string;
}

export interface CreatePoolRequest {
  name: string;
  layout: SortKey;
  seekStride: number;
  /** Target size of data objects, in bytes. */
  thresh: number;
  /** Loads write columnar copies of data objects (the service's default: true). */
  vectors?: boolean;
}

export interface LoadOptions {
  /** Media type of the body; '' (the default) lets the server detect it. */
  contentType?: string;
  message?: CommitMessage;
  /** CSV field delimiter (the csv.delim parameter). */
  csvDelim?: string;
}

export interface QueryOptions {
  /** Files holding query text, placed before the query (`-I`). */
  includes?: string[];
  /** Called with each warning the server sends. */
  onWarning?: (msg: string) => void;
}

export interface LakeEvent {
  type: string;
  /** The event's data (parsed JSON when the stream is JSON, else text). */
  data: unknown;
}

/** api.AuthMethodResponse: kind "" (none) or "auth0" with the tenant to log in to. */
export interface AuthMethod {
  kind: string;
  auth0?: Auth0Details | null;
}

/** api.AuthIdentityResponse. */
export interface AuthIdentity {
  tenant_id: string;
  user_id: string;
}

/** An error the reference's client reports in place of the server's (e.g. "pool exists"). */
export class ClientError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ClientError';
  }
}

interface PoolJSON {
  ts: string;
  name: string;
  id: string;
  layout: { order: string; keys: string[][] | null };
  seek_stride: number;
  threshold: number;
}

interface BranchJSON {
  ts: string;
  name: string;
  commit: string;
}

interface CommitJSON {
  commit: string;
  warnings: string[] | null;
}

function isStatus(err: unknown, status: number): boolean {
  return err instanceof ResponseError && err.status === status;
}

/** Runs op, replacing a response error of the given status with message. */
async function translate<T>(op: Promise<T>, status: number, message: string): Promise<T> {
  try {
    return await op;
  } catch (e) {
    if (isStatus(e, status)) throw new ClientError(message, e);
    throw e;
  }
}

function id(s: string): Ksuid {
  return Ksuid.mustParse(s);
}

interface RuleJSON {
  id: string;
  name: string;
}

/** An index rule to add: a name and one of fields, type or script. */
export interface IndexRuleRequest {
  name: string;
  fields?: string[][];
  type?: string;
  script?: string;
}

/** An index rule the service reported. */
export interface IndexRuleInfo {
  id: Ksuid;
  name: string;
}

function toPool(p: PoolJSON): Pool {
  return {
    ts: p.ts,
    name: p.name,
    id: id(p.id),
    layout: { order: p.layout.order === 'desc' ? 'desc' : 'asc', keys: p.layout.keys ?? [] },
    seekStride: p.seek_stride,
    threshold: p.threshold,
  };
}

function toBranch(b: BranchJSON): Branch {
  return { ts: b.ts, name: b.name, commit: id(b.commit) };
}

function toCommit(c: CommitJSON): CommitResult {
  return { commit: id(c.commit), warnings: c.warnings ?? [] };
}

/**
 * JSON text safe for an HTTP header: characters outside ASCII are written
 * as \u escapes (the server's JSON decoder reads them back unchanged).
 */
function headerJSON(v: unknown): string {
  return JSON.stringify(v).replace(
    /[\u007f-\uffff]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
  );
}

/** The Zed-Commit header the reference's client sends (Go field names as keys). */
export function commitHeader(m: CommitMessage = {}): Record<string, string> {
  return {
    'Zed-Commit': headerJSON({ Author: m.author ?? '', Body: m.body ?? '', Meta: m.meta ?? '' }),
  };
}

export interface ClientOptions extends ConnectionOptions {
  /**
   * The service is a lake this process opened itself (`-lake DIR`): errors
   * keep the lake's own texts, as the reference's local lake words them,
   * instead of the texts its client gives a service's answers.
   */
  local?: boolean;
}

export class LakeClient {
  readonly conn: Connection;
  readonly local: boolean;

  constructor(lake: string | Connection, opts: ClientOptions = {}) {
    this.conn = typeof lake === 'string' ? new Connection(lake, opts) : lake;
    this.local = opts.local ?? false;
  }

  /** Runs op, replacing a response error of the given status with message (service texts). */
  private translate<T>(op: Promise<T>, status: number, message: string): Promise<T> {
    return this.local ? op : translate(op, status, message);
  }

  get url(): string {
    return this.conn.url;
  }

  /** Releases the connection's sockets. */
  close(): void {
    this.conn.close();
  }

  /** The server's version string (GET /version). */
  async version(): Promise<string> {
    const r = await this.conn.json<{ version: string }>('GET', '/version');
    return r.version;
  }

  /** Checks the server answers (GET /status); resolves with the round trip in ms. */
  async ping(): Promise<number> {
    const start = process.hrtime.bigint();
    await this.conn.send('GET', '/status');
    return Number(process.hrtime.bigint() - start) / 1e6;
  }

  /** The server's authentication method (GET /auth/method). */
  authMethod(): Promise<AuthMethod> {
    return this.conn.json('GET', '/auth/method');
  }

  /** Who the server takes this client for (GET /auth/identity). */
  authIdentity(): Promise<AuthIdentity> {
    return this.conn.json('GET', '/auth/identity');
  }

  /** A pool's statistics (GET /pool/{pool}/stats). */
  poolStats(pool: string): Promise<Record<string, unknown>> {
    return this.translate(
      this.conn.json('GET', urlPath('pool', pool, 'stats')),
      404,
      'pool not found',
    );
  }

  /** The commit at a branch's tip. */
  async branchGet(pool: string, branch: string): Promise<CommitResult> {
    const op = this.conn.json<CommitJSON>('GET', urlPath('pool', pool, 'branch', branch));
    return toCommit(await this.translate(op, 404, 'branch not found'));
  }

  async createPool(req: CreatePoolRequest): Promise<{ pool: Pool; branch: Branch }> {
    const body = JSON.stringify({
      name: req.name,
      layout: req.layout,
      seek_stride: req.seekStride,
      thresh: req.thresh,
      ...(req.vectors === false ? { vectors: false } : {}),
    });
    const op = this.conn.json<{ pool: PoolJSON; branch: BranchJSON }>('POST', '/pool', {
      body,
      contentType: MediaType.JSON,
    });
    const r = await this.translate(op, 409, 'pool exists');
    return { pool: toPool(r.pool), branch: toBranch(r.branch) };
  }

  renamePool(pool: string, name: string): Promise<void> {
    return this.conn.send('PUT', urlPath('pool', pool), {
      body: JSON.stringify({ name }),
      contentType: MediaType.JSON,
    });
  }

  removePool(pool: string): Promise<void> {
    return this.translate(this.conn.send('DELETE', urlPath('pool', pool)), 404, 'pool not found');
  }

  /** Creates a branch pointing at commit (an ID in either form). */
  async createBranch(pool: string, name: string, commit: string): Promise<Branch> {
    const op = this.conn.json<BranchJSON>('POST', urlPath('pool', pool), {
      body: JSON.stringify({ name, commit }),
      contentType: MediaType.JSON,
    });
    return toBranch(await this.translate(op, 409, 'branch exists'));
  }

  deleteBranch(pool: string, branch: string): Promise<void> {
    return this.conn.send('DELETE', urlPath('pool', pool, 'branch', branch));
  }

  /** Merges child into parent, committing on parent. */
  async mergeBranch(
    pool: string,
    child: string,
    parent: string,
    message?: CommitMessage,
  ): Promise<CommitResult> {
    return this.commitPost(urlPath('pool', pool, 'branch', parent, 'merge', child), message);
  }

  async revert(
    pool: string,
    branch: string,
    commit: string,
    message?: CommitMessage,
  ): Promise<CommitResult> {
    return this.commitPost(urlPath('pool', pool, 'branch', branch, 'revert', commit), message);
  }

  /** Rewrites the objects as new sorted, non-overlapping objects in one commit. */
  compact(
    pool: string,
    branch: string,
    ids: string[],
    message?: CommitMessage,
  ): Promise<CommitResult> {
    return this.objectsPost(urlPath('pool', pool, 'branch', branch, 'compact'), ids, message);
  }

  /** Writes columnar copies of the objects and commits them to the branch. */
  addVectors(
    pool: string,
    branch: string,
    ids: string[],
    message?: CommitMessage,
  ): Promise<CommitResult> {
    return this.objectsPost(urlPath('pool', pool, 'branch', branch, 'vectors'), ids, message);
  }

  /** Commits the removal of the objects' columnar copies from the branch. */
  deleteVectors(
    pool: string,
    branch: string,
    ids: string[],
    message?: CommitMessage,
  ): Promise<CommitResult> {
    return this.objectsPost(
      urlPath('pool', pool, 'branch', branch, 'vectors', 'delete'),
      ids,
      message,
    );
  }

  /** A commit-making POST of {object_ids}. */
  private async objectsPost(
    path: string,
    ids: string[],
    message?: CommitMessage,
  ): Promise<CommitResult> {
    const r = await this.conn.json<CommitJSON>('POST', path, {
      body: JSON.stringify({ object_ids: ids }),
      contentType: MediaType.JSON,
      headers: commitHeader(message),
    });
    return toCommit(r);
  }

  /**
   * Adds index rules (POST /index): each a name with the field paths, the
   * type or the agg script it indexes.
   */
  addIndexRules(rules: IndexRuleRequest[]): Promise<void> {
    return this.conn.send('POST', '/index', {
      body: JSON.stringify({ rules }),
      contentType: MediaType.JSON,
    });
  }

  /** Drops the index rules with these IDs (DELETE /index); resolves with the rules dropped. */
  async deleteIndexRules(ids: string[]): Promise<IndexRuleInfo[]> {
    const r = await this.conn.json<{ rules: RuleJSON[] | null }>('DELETE', '/index', {
      body: JSON.stringify({ rule_ids: ids }),
      contentType: MediaType.JSON,
    });
    return (r?.rules ?? []).map((x) => ({ id: id(x.id), name: x.name }));
  }

  /**
   * Indexes data objects of a branch (tags: object IDs, or commit IDs for
   * the objects they added) by the rules named (names or IDs).
   */
  async applyIndexRules(
    pool: string,
    branch: string,
    rules: string[],
    tags: string[],
  ): Promise<CommitResult> {
    const r = await this.conn.json<CommitJSON>(
      'POST',
      urlPath('pool', pool, 'branch', branch, 'index'),
      { body: JSON.stringify({ rules, tags }), contentType: MediaType.JSON },
    );
    return toCommit(r);
  }

  /** Indexes every object of a branch lacking the rules named (all rules when none are). */
  async updateIndex(pool: string, branch: string, rules: string[]): Promise<CommitResult> {
    const r = await this.conn.json<CommitJSON>(
      'POST',
      urlPath('pool', pool, 'branch', branch, 'index', 'update'),
      { body: JSON.stringify({ rules }), contentType: MediaType.JSON },
    );
    return toCommit(r);
  }

  /** A bodiless POST that makes a commit. */
  private async commitPost(path: string, message?: CommitMessage): Promise<CommitResult> {
    return toCommit(
      await this.conn.json<CommitJSON>('POST', path, { headers: commitHeader(message) }),
    );
  }

  /**
   * Loads data into a branch. The body is bytes, a stream, or a writer
   * that streams it (e.g. ZNG converted on the fly).
   */
  async load(
    pool: string,
    branch: string,
    body: Buffer | string | Readable | BodyWriter,
    opts: LoadOptions = {},
  ): Promise<CommitResult> {
    let path = urlPath('pool', pool, 'branch', branch);
    if (opts.csvDelim !== undefined) path += `?csv.delim=${encodeURIComponent(opts.csvDelim)}`;
    const send: Buffer | string | BodyWriter =
      body instanceof Readable ? (out: Writable) => pipeline(body, out, { end: false }) : body;
    const r = await this.conn.json<CommitJSON>('POST', path, {
      body: send,
      contentType: opts.contentType ?? '',
      headers: commitHeader(opts.message),
    });
    return toCommit(r);
  }

  /** Deletes data objects by ID. */
  delete(
    pool: string,
    branch: string,
    ids: string[],
    message?: CommitMessage,
  ): Promise<CommitResult> {
    return this.deleteRequest(pool, branch, ids, '', message);
  }

  /** Deletes the values matching a filter. */
  deleteWhere(
    pool: string,
    branch: string,
    where: string,
    message?: CommitMessage,
  ): Promise<CommitResult> {
    return this.deleteRequest(pool, branch, [], where, message);
  }

  private async deleteRequest(
    pool: string,
    branch: string,
    ids: string[],
    where: string,
    message?: CommitMessage,
  ): Promise<CommitResult> {
    const r = await this.conn.json<CommitJSON>(
      'POST',
      urlPath('pool', pool, 'branch', branch, 'delete'),
      {
        body: JSON.stringify({ object_ids: ids, where }),
        contentType: MediaType.JSON,
        headers: commitHeader(message),
      },
    );
    return toCommit(r);
  }

  /** Removes (or with dryrun lists) the objects no longer reachable from revision. */
  async vacuum(pool: string, revision: string, dryrun: boolean): Promise<Ksuid[]> {
    let path = urlPath('pool', pool, 'revision', revision, 'vacuum');
    if (dryrun) path += '?dryrun=true';
    const r = await this.conn.json<{ object_ids: string[] | null }>('POST', path);
    return (r.object_ids ?? []).map(id);
  }

  /**
   * Runs a query and returns its results as a reader. A parse error is
   * reported with the reference's positioned text (not a status code).
   */
  async query(src: string, head?: Head, opts: QueryOptions = {}): Promise<QueryReader> {
    const { text, info } = await concatSource(opts.includes ?? [], src);
    const body = JSON.stringify({ query: text, head: head ?? { pool: '', branch: '' } });
    let res;
    try {
      res = await this.conn.request('POST', '/query?ctrl=T', {
        body,
        contentType: MediaType.JSON,
        accept: MediaType.ZNG,
      });
    } catch (e) {
      const offset = e instanceof ResponseError ? e.info?.parse_error_offset : undefined;
      if (typeof offset === 'number') throw new ClientError(parseErrorText(text, info, offset), e);
      throw e;
    }
    const stream = res.body;
    return new QueryReader(sourceFromReadable(stream), () => stream.destroy(), opts.onWarning);
  }

  /** Every value a (small) query returns, in JSON form. */
  queryJS(src: string, head?: Head): Promise<unknown[]> {
    return this.collect(src, head, valueToJS);
  }

  /** Every value a (small) query returns, as values (their own copies). */
  queryValues(src: string, head?: Head): Promise<Value[]> {
    return this.collect(src, head, (v) => v.copy());
  }

  private async collect<T>(src: string, head: Head | undefined, f: (v: Value) => T): Promise<T[]> {
    const q = await this.query(src, head);
    const out: T[] = [];
    try {
      for (let b = await q.read(); b; b = await q.read()) for (const v of b) out.push(f(v));
    } finally {
      await q.close();
    }
    return out;
  }

  /** The lake's pools (`from :pools`). */
  async pools(): Promise<Pool[]> {
    return (await this.queryJS('from :pools')).map((p) => toPool(p as PoolJSON));
  }

  /**
   * The pool with this name (or, failing that, this ID), as the reference's
   * client looks pools up: by listing them.
   */
  async lookupPool(nameOrID: string): Promise<Pool> {
    const all = await this.pools();
    const byName = all.filter((p) => p.name === nameOrID);
    if (byName.length > 1) {
      throw new ClientError(`internal error: multiple pools found with same name: ${nameOrID}`);
    }
    if (byName.length === 1) return byName[0];
    const want = Ksuid.parse(nameOrID);
    const byID = want && all.find((p) => p.id.bytes.equals(want.bytes));
    if (byID) return byID;
    throw new ClientError(`${this.local ? nameOrID : JSON.stringify(nameOrID)}: pool not found`);
  }

  /**
   * Subscribes to the event stream (GET /events). Each event is yielded
   * as it arrives; stop iterating to unsubscribe.
   */
  async *events(accept: string = MediaType.JSON): AsyncGenerator<LakeEvent> {
    const res = await this.conn.request('GET', '/events', { accept });
    const json = accept === MediaType.JSON;
    let pending = '';
    let type = '';
    let data: string[] = [];
    try {
      for await (const chunk of res.body) {
        pending += (chunk as Buffer).toString('utf8');
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl).replace(/\r$/, '');
          pending = pending.slice(nl + 1);
          if (line === '') {
            if (type !== '' || data.length > 0) {
              const text = data.join('\n');
              yield {
                type: type || 'message',
                data: json && text !== '' ? JSON.parse(text) : text,
              };
            }
            type = '';
            data = [];
          } else if (line.startsWith(':')) {
            // a comment (keep-alive)
          } else if (line.startsWith('event:')) {
            type = line.slice(6).trim();
          } else if (line.startsWith('data:')) {
            data.push(line.slice(5).replace(/^ /, ''));
          }
        }
      }
    } finally {
      res.body.destroy();
    }
  }
}
