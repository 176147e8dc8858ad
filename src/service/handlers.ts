// The lake endpoints: pools, branches, loads, deletes, merges, reverts and
// vacuums. Each reads its parameters as the reference does (pool by ID or
// name, IDs in base62 or 0x form), calls the lake, and answers with the
// reference's payload; lake errors carry their kind to the status.

import { Request, Response } from 'express';
import { FormatError, ValueReader } from '../formats/io';
import { openReader } from '../formats/detect';
import { Lake, PoolConfig } from '../lake';
import { invalid, isLakeError } from '../lake/errors';
import { Ksuid } from '../lake/ksuid';
import {
  branchMetaRecord,
  branchRecord,
  metaTypes,
  poolRecord,
  RecordBuilder,
} from '../lake/records';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { Authenticator } from './auth/authenticator';
import { anonymous, Identity } from './auth/token';
import { QueryEngine } from './engine';
import { HttpError } from './errors';
import { Logger } from './log';
import { Metrics } from './metrics';
import { requestFormat } from './mime';
import {
  bodySource,
  boolParam,
  commitMessage,
  boolField,
  intField,
  isZlibError,
  readPayload,
  recordField,
  stringField,
  stringParam,
  stringsField,
} from './request';
import { respondValue } from './respond';
import {
  authIdentityResponse,
  authMethodResponse,
  commitResponse,
  poolStatsResponse,
  queryErrorResponse,
  vacuumResponse,
} from './responses';
import { QueryStatusTable } from './query';

/** What every handler can reach. */
export interface HandlerContext {
  lake: Lake;
  /** The authentication in force (null: off). */
  auth: Authenticator | null;
  engine: () => QueryEngine;
  metrics: Metrics;
  statuses: QueryStatusTable;
  /** The response format chosen from Accept. */
  format: string;
  log: Logger;
}

export type Handler = (c: HandlerContext, req: Request, res: Response) => Promise<void>;

export function param(req: Request, name: string): string {
  const v = (req.params as Record<string, string | undefined>)[name];
  if (v === undefined) throw invalid(`no arg ${JSON.stringify(name)} in path`);
  return v;
}

async function pool(c: HandlerContext, req: Request): Promise<PoolConfig> {
  return c.lake.lookupPool(param(req, 'pool'));
}

function metaRecord(build: (mt: ReturnType<typeof metaTypes>, rb: RecordBuilder) => Value): Value {
  return build(metaTypes(new TypeContext()), new RecordBuilder());
}

/** Parses an ID as the reference does, with its text for the failure. */
export function parseId(s: string): Ksuid {
  const id = Ksuid.parse(s);
  if (!id) throw invalid(`invalid ID: ${s}`);
  return id;
}

function noContent(res: Response): void {
  res.status(204).end();
}

// ---- auth ----

export const getAuthMethod: Handler = async (c, _req, res) => {
  await respondValue(res, c.format, authMethodResponse(c.auth?.details ?? null));
};

export const getAuthIdentity: Handler = async (c, _req, res) => {
  // The token's identity; without authentication the reference's anonymous one.
  const ident = (res.locals.identity as Identity | undefined) ?? anonymous;
  await respondValue(res, c.format, authIdentityResponse(ident));
};

// ---- pools ----

export const createPool: Handler = async (c, req, res) => {
  const p = await readPayload(req);
  const layout = recordField(p, 'layout');
  const keysRaw = layout.keys;
  let keys: string[][] | undefined;
  if (keysRaw !== undefined && keysRaw !== null) {
    if (
      !Array.isArray(keysRaw) ||
      keysRaw.some((k) => !Array.isArray(k) || k.some((f) => typeof f !== 'string'))
    ) {
      throw invalid('field "layout.keys": expected an array of arrays of strings');
    }
    keys = keysRaw as string[][];
  }
  const { pool: cfg, branch } = await c.lake.createPool(stringField(p, 'name'), {
    layout: { order: stringField(layout, 'order') || undefined, keys },
    seekStride: intField(p, 'seek_stride'),
    threshold: intField(p, 'thresh'),
    vectors: boolField(p, 'vectors', true),
  });
  await respondValue(
    res,
    c.format,
    metaRecord((mt, rb) => branchMetaRecord(mt, rb, cfg, branch)),
  );
};

export const getPool: Handler = async (c, req, res) => {
  const cfg = await pool(c, req);
  await respondValue(
    res,
    c.format,
    metaRecord((mt, rb) => poolRecord(mt, rb, cfg)),
  );
};

export const renamePool: Handler = async (c, req, res) => {
  const p = await readPayload(req);
  await c.lake.renamePool(param(req, 'pool'), stringField(p, 'name'));
  noContent(res);
};

export const deletePool: Handler = async (c, req, res) => {
  await c.lake.deletePool(param(req, 'pool'));
  noContent(res);
};

export const createBranch: Handler = async (c, req, res) => {
  const p = await readPayload(req);
  const cfg = await pool(c, req);
  const commitText = stringField(p, 'commit');
  const commit = Ksuid.parse(commitText);
  if (!commit) throw invalid(`invalid commit object: ${commitText}`);
  const branch = await c.lake.createBranch(cfg, stringField(p, 'name'), commit);
  await respondValue(
    res,
    c.format,
    metaRecord((mt, rb) => branchRecord(mt, rb, branch)),
  );
};

export const poolStats: Handler = async (c, req, res) => {
  const cfg = await pool(c, req);
  const main = await c.lake.lookupBranch(cfg, 'main');
  if (main.commit.isNil) {
    // No commit yet: the reference answers with no content.
    noContent(res);
    return;
  }
  const stats = await c.lake.stats(cfg, 'main');
  await respondValue(res, c.format, poolStatsResponse(stats.size, stats.span));
};

export const vacuum: Handler = async (c, req, res) => {
  const dryrun = boolParam(req, 'dryrun');
  const ids = await c.lake.vacuum(param(req, 'pool'), param(req, 'revision'), dryrun);
  await respondValue(res, c.format, vacuumResponse(ids));
};

// ---- branches ----

export const getBranch: Handler = async (c, req, res) => {
  const cfg = await pool(c, req);
  const branch = await c.lake.lookupBranch(cfg, param(req, 'branch'));
  await respondValue(res, c.format, commitResponse(branch.commit));
};

export const deleteBranch: Handler = async (c, req, res) => {
  await c.lake.deleteBranch(await pool(c, req), param(req, 'branch'));
  noContent(res);
};

/**
 * Reads values until the input ends or turns out malformed. As in the
 * reference, a malformed input ends the load there: what came before is
 * loaded and the error is reported as a warning. A failure of the request
 * itself (the client going away) is an error: nothing is committed.
 */
class WarningsReader implements ValueReader {
  readonly warnings: string[] = [];
  private done = false;

  constructor(private inner: ValueReader) {}

  async read(): Promise<Value[] | null> {
    if (this.done) return null;
    try {
      const batch = await this.inner.read();
      if (!batch) this.done = true;
      return batch;
    } catch (e) {
      if (!(e instanceof FormatError) && !isZlibError(e)) throw e;
      this.done = true;
      // A truncated compressed body: the reference's (Go's) text for it.
      const code = (e as { code?: unknown }).code;
      this.warnings.push(code === 'Z_BUF_ERROR' ? 'unexpected EOF' : (e as Error).message);
      return null;
    }
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}

/** Counts the bytes of a load's decoded body and notes whether any is not white space. */
class CountingSource {
  bytes = 0;
  content = false;

  constructor(private src: ReturnType<typeof bodySource>) {}

  read = async (): Promise<Buffer | null> => {
    const c = await this.src.read();
    if (c) {
      this.bytes += c.length;
      if (!this.content) this.content = !isWhiteSpace(c);
    }
    return c;
  };
}

function isWhiteSpace(b: Buffer): boolean {
  for (let i = 0; i < b.length; i++) {
    const x = b[i];
    if (x !== 0x20 && x !== 0x0a && x !== 0x0d && x !== 0x09) return false;
  }
  return true;
}

export const load: Handler = async (c, req, res) => {
  const branchName = param(req, 'branch');
  const format = requestFormat(req.headers['content-type'], 'auto');
  const delim = stringParam(req, 'csv.delim');
  if (delim !== '' && Buffer.byteLength(delim) !== 1) {
    throw invalid('invalid query param "csv.delim": must be exactly one character');
  }
  const msg = commitMessage(req, c.lake.ctx);
  const cfg = await pool(c, req);
  await c.lake.lookupBranch(cfg, branchName);
  const src = new CountingSource(bodySource(req));
  const ctx = new TypeContext();
  const opts = {
    ctx,
    format,
    csvDelim: delim || undefined,
    // Loads validate ZNG (the reference forces it for the lake).
    validate: format === 'zng',
    name: 'request body',
  };
  let reader: ValueReader;
  try {
    reader = await openReader({ read: src.read }, opts);
  } catch (e) {
    if (isZlibError(e)) throw invalid(`request body: ${(e as Error).message}`);
    if (isLakeError(e)) throw e;
    throw invalid((e as Error).message);
  }
  const wr = new WarningsReader(reader);
  let result;
  try {
    result = await c.lake.load(cfg, branchName, wr, msg);
  } catch (e) {
    if (!(isLakeError(e, 'invalid') && e.message === 'empty transaction')) throw e;
    if (src.content && wr.warnings.length === 0) {
      // Well-formed input that holds no values (a Zeek log of headers
      // only): nothing to commit, which is not the client's mistake. The
      // answer names the branch's unchanged tip and says why.
      const tip = await c.lake.lookupBranch(cfg, branchName);
      await respondValue(res, c.format, commitResponse(tip.commit, ['no records in request']));
      return;
    }
    // The reference says only this; the reasons the input ended go in info.
    const info = wr.warnings.length > 0 ? { warnings: wr.warnings } : undefined;
    throw new HttpError('invalid', 'no records in request', 400, info);
  } finally {
    await wr.close().catch(() => undefined);
    c.metrics.loadRequestBytes.inc(src.bytes);
  }
  c.metrics.loadRecords.inc(result.records);
  c.metrics.loadBytes.inc(result.bytes);
  c.metrics.commits.inc({ operation: 'load' });
  c.log.debug('load committed', {
    commit: result.commit.toString(),
    records: result.records,
    bytes: result.bytes,
    request_bytes: src.bytes,
  });
  await respondValue(res, c.format, commitResponse(result.commit, wr.warnings));
};

export const deleteData: Handler = async (c, req, res) => {
  const branchName = param(req, 'branch');
  const msg = commitMessage(req, c.lake.ctx);
  const p = await readPayload(req);
  const cfg = await pool(c, req);
  await c.lake.lookupBranch(cfg, branchName);
  const objectIds = stringsField(p, 'object_ids');
  const where = stringField(p, 'where');
  let commit: Ksuid;
  if (objectIds.length > 0) {
    if (where !== '') throw invalid('object_ids and where cannot both be set');
    const ids = objectIds.map(parseId);
    delete msg.meta;
    commit = (await c.lake.deleteObjects(cfg, branchName, ids, msg)).commit;
  } else {
    if (where === '') throw invalid('either object_ids or where must be set');
    const filter = await c.engine().deleteFilter(where, c.lake, cfg, branchName);
    commit = (
      await c.lake.deleteWhere(cfg, branchName, filter.pred, msg, {
        ctx: filter.ctx,
        range: filter.range,
      })
    ).commit;
  }
  c.metrics.commits.inc({ operation: 'delete' });
  await respondValue(res, c.format, commitResponse(commit));
};

export const merge: Handler = async (c, req, res) => {
  const cfg = await pool(c, req);
  const parent = param(req, 'branch');
  const child = param(req, 'child');
  const msg = commitMessage(req);
  const { commit } = await c.lake.merge(cfg, child, parent, msg);
  c.metrics.commits.inc({ operation: 'merge' });
  await respondValue(res, c.format, commitResponse(commit));
};

export const compact: Handler = async (c, req, res) => {
  const p = await readPayload(req);
  const branchName = param(req, 'branch');
  const msg = commitMessage(req);
  const cfg = await pool(c, req);
  const ids = stringsField(p, 'object_ids').map(parseId);
  const { commit } = await c.lake.compact(cfg, branchName, ids, msg);
  c.metrics.commits.inc({ operation: 'compact' });
  await respondValue(res, c.format, commitResponse(commit));
};

/** POST .../vectors and .../vectors/delete: columnar copies of objects. */
function vectorsHandler(op: 'add' | 'delete'): Handler {
  return async (c, req, res) => {
    const p = await readPayload(req);
    const branchName = param(req, 'branch');
    const msg = commitMessage(req);
    const cfg = await pool(c, req);
    const ids = stringsField(p, 'object_ids').map(parseId);
    const { commit } =
      op === 'add'
        ? await c.lake.addVectors(cfg, branchName, ids, msg)
        : await c.lake.deleteVectors(cfg, branchName, ids, msg);
    c.metrics.commits.inc({ operation: `vector-${op}` });
    await respondValue(res, c.format, commitResponse(commit));
  };
}

export const addVectors = vectorsHandler('add');
export const deleteVectors = vectorsHandler('delete');

export const revert: Handler = async (c, req, res) => {
  const cfg = await pool(c, req);
  const branchName = param(req, 'branch');
  const text = param(req, 'commit');
  const id = Ksuid.parse(text);
  if (!id) throw invalid(`invalid path param "commit": invalid ID: ${text}`);
  const msg = commitMessage(req);
  const { commit } = await c.lake.revert(cfg, branchName, id, msg);
  c.metrics.commits.inc({ operation: 'revert' });
  await respondValue(res, c.format, commitResponse(commit));
};

// ---- query status ----

export const queryStatus: Handler = async (c, req, res) => {
  const waiting = c.statuses.wait(param(req, 'requestID'));
  if (!waiting) throw invalid('query not found');
  await respondValue(res, c.format, queryErrorResponse(await waiting));
};
