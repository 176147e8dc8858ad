// The service's response and event payloads as Zed values with the
// reference's shapes and type names. The reference marshals Go structs:
// responses with package-qualified names (api.CommitResponse,
// ksuid.KSUID, ...) and events and control messages with bare names
// (EventPool, KSUID, ...). The values are written in whatever format the
// client asked for; JSON renders KSUIDs as "0x..." hex.

import { parseValue } from '../formats/zson';
import { Ksuid } from '../lake/ksuid';
import { LakeEvent } from '../lake/events';
import { TypeContext } from '../zed/context';
import { quoteString } from '../zed/names';
import { formatTime } from '../zed/nano';
import { Value } from '../zed/value';
import { Auth0Details } from './auth/authenticator';
import { Identity } from './auth/token';

/** Builds a value from ZSON text (responses are small and off the hot path). */
function zson(text: string): Value {
  return parseValue(new TypeContext(), text);
}

function id(k: Ksuid, name = 'ksuid.KSUID'): string {
  return `${k.toHex()}(=${name})`;
}

function strings(list: string[] | null): string {
  if (list === null) return 'null([string])';
  if (list.length === 0) return '[]([string])';
  return `[${list.map(quoteString).join(',')}]`;
}

/** api.CommitResponse: warnings is [] after a load and null otherwise. */
export function commitResponse(commit: Ksuid, warnings: string[] | null = null): Value {
  return zson(`{commit:${id(commit)},warnings:${strings(warnings)}}(=api.CommitResponse)`);
}

/** api.VacuumResponse. */
export function vacuumResponse(ids: Ksuid[]): Value {
  const list =
    ids.length === 0 ? '[]([ksuid.KSUID=bytes])' : `[${ids.map((k) => k.toHex()).join(',')}]`;
  const typed = ids.length === 0 ? list : `${list}([ksuid.KSUID=bytes])`;
  return zson(`{object_ids:${typed}}(=api.VacuumResponse)`);
}

/** exec.PoolStats: data size and, when the pool key is a time, its span. */
export function poolStatsResponse(size: number, span?: { ts: bigint; dur: bigint }): Value {
  const s = span
    ? `{ts:${formatTime(span.ts)},dur:${span.dur}(=nano.Duration)}(=nano.Span)`
    : 'null(nano.Span={ts:time,dur:nano.Duration=int64})';
  return zson(`{size:${size},span:${s}}(=exec.PoolStats)`);
}

/**
 * api.AuthMethodResponse: kind "" and auth0 null with authentication
 * off, else kind "auth0" and the Auth0 tenant clients get tokens from.
 */
export function authMethodResponse(auth0: Auth0Details | null): Value {
  if (!auth0) {
    return zson(
      '{kind:""(=api.AuthMethod),auth0:null(api.AuthMethodAuth0Details={audience:string,client_id:string,domain:string})}(=api.AuthMethodResponse)',
    );
  }
  const details = `{audience:${quoteString(auth0.audience)},client_id:${quoteString(auth0.clientId)},domain:${quoteString(auth0.domain)}}(=api.AuthMethodAuth0Details)`;
  return zson(`{kind:"auth0"(=api.AuthMethod),auth0:${details}}(=api.AuthMethodResponse)`);
}

/** api.AuthIdentityResponse. */
export function authIdentityResponse(ident: Identity): Value {
  return zson(
    `{tenant_id:${quoteString(ident.tenantId)},user_id:${quoteString(ident.userId)}}(=api.AuthIdentityResponse)`,
  );
}

/** api.QueryError (the /query/status answer; error is "" when the query succeeded). */
export function queryErrorResponse(message: string): Value {
  return zson(`{error:${quoteString(message)}}(=api.QueryError)`);
}

/** An event's SSE name and data value, in the reference's simple style. */
export function eventValue(e: LakeEvent): { name: string; value: Value } {
  const hex = (s: string) => {
    const k = Ksuid.parse(s);
    return k ? id(k, 'KSUID') : quoteString(s);
  };
  let text: string;
  switch (e.name) {
    case 'pool-new':
    case 'pool-update':
    case 'pool-delete':
      text = `{pool_id:${hex(e.pool_id)}}(=EventPool)`;
      break;
    case 'pool-commit':
      text = `{pool_id:${hex(e.pool_id)},commit_id:${hex(e.commit_id)}}(=EventPoolCommit)`;
      break;
    case 'branch-update':
    case 'branch-delete':
      text = `{pool_id:${hex(e.pool_id)},branch:${quoteString(e.branch)}}(=EventBranch)`;
      break;
    case 'branch-commit':
      text =
        `{commit_id:${hex(e.commit_id)},pool_id:${hex(e.pool_id)},` +
        `branch:${quoteString(e.branch)},parent:${quoteString(e.parent)}}(=EventBranchCommit)`;
      break;
  }
  return { name: e.name, value: zson(text) };
}

// ---- query control messages ----

export interface Progress {
  bytesRead: number;
  bytesMatched: number;
  recordsRead: number;
  recordsMatched: number;
}

/**
 * QueryStats as ZSON for a ZNG control frame: the reference marshals
 * the embedded zbuf.Progress as a nested record named Progress.
 */
export function queryStatsZSON(start: bigint, now: bigint, p: Progress): string {
  return (
    `{start_time:${formatTime(start)},update_time:${formatTime(now)},` +
    `Progress:{bytes_read:${p.bytesRead},bytes_matched:${p.bytesMatched},` +
    `records_read:${p.recordsRead},records_matched:${p.recordsMatched}}(=Progress)}(=QueryStats)\n`
  );
}

/** QueryStats as ZJSON writes it (nano.Ts as {sec, ns}, Progress flattened by Go's JSON). */
export function queryStatsJSON(start: bigint, now: bigint, p: Progress): Record<string, unknown> {
  const ts = (t: bigint) => ({ sec: Number(t / 1000000000n), ns: Number(t % 1000000000n) });
  return {
    start_time: ts(start),
    update_time: ts(now),
    bytes_read: p.bytesRead,
    bytes_matched: p.bytesMatched,
    records_read: p.recordsRead,
    records_matched: p.recordsMatched,
  };
}
