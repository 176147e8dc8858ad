// The index endpoints: index rules (POST and DELETE /index) and indexing a
// branch's objects (POST .../index and .../index/update), with the
// reference's request fields (api.IndexRulesAddRequest, ...) and the API
// contract's (`rule_name`, `rule_names`) both understood.

import { RuleSpec } from '../lake';
import { invalid } from '../lake/errors';
import { ruleRecord } from '../lake/index/object';
import { IndexRule } from '../lake/index/rules';
import { metaTypes, RecordBuilder } from '../lake/records';
import { TypeContext } from '../zed/context';
import { compareTypes, Type, TypeUnion } from '../zed/types';
import { Value } from '../zed/value';
import { Handler, HandlerContext, param, parseId } from './handlers';
import { Payload, readPayload, stringField, stringsField } from './request';
import { respondValue } from './respond';
import { commitResponse } from './responses';

/**
 * A rule's field paths as a client may send them: [["a","b"]] (the
 * reference's field.List), ["a.b"], or "a.b".
 */
function fieldsOf(v: unknown, at: string): string[][] {
  const bad = () => invalid(`${at}: fields must be field paths`);
  if (typeof v === 'string') return v.split(',').map((p) => p.split('.'));
  if (!Array.isArray(v)) throw bad();
  return v.map((p) => {
    if (typeof p === 'string') return p.split('.');
    if (!Array.isArray(p) || p.some((f) => typeof f !== 'string')) throw bad();
    return p as string[];
  });
}

function ruleSpec(v: unknown, i: number): RuleSpec {
  const at = `rules[${i}]`;
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw invalid(`${at}: an index rule must be a record`);
  const p = v as Payload;
  const spec: RuleSpec = { name: stringField(p, 'name') };
  if (p.fields !== undefined && p.fields !== null) spec.fields = fieldsOf(p.fields, at);
  if (p.type !== undefined && p.type !== null) spec.type = stringField(p, 'type');
  if (p.script !== undefined && p.script !== null) spec.script = stringField(p, 'script');
  const id = stringField(p, 'id');
  if (id !== '') spec.id = parseId(id);
  return spec;
}

/** POST /index: adds index rules ({rules:[...]}); 204. */
export const addIndexRules: Handler = async (c, req, res) => {
  const p = await readPayload(req);
  const raw = p.rules;
  if (raw !== undefined && raw !== null && !Array.isArray(raw))
    throw invalid('field "rules": expected an array of index rules');
  const specs = ((raw as unknown[] | null | undefined) ?? []).map(ruleSpec);
  await c.lake.addIndexRules(specs, (script) => c.engine().checkScript(script));
  res.status(204).end();
};

/** The reference's api.IndexRulesDeleteResponse: {rules:[<rule records>]}. */
function rulesResponse(rules: IndexRule[]): Value {
  const ctx = new TypeContext();
  const mt = metaTypes(ctx);
  const rb = new RecordBuilder();
  const vals = rules.map((r) => ruleRecord(mt, rb, r));
  const types = [...new Set(vals.map((v) => v.type as Type))].sort(compareTypes);
  const elem = types.length === 1 ? types[0] : ctx.lookupTypeUnion(types);
  rb.begin().open();
  for (const v of vals) {
    if (elem instanceof TypeUnion) rb.open().tag(elem.tagOf(v.type)).value(v).close();
    else rb.value(v);
  }
  rb.close();
  const t = mt.namedRecord('api.IndexRulesDeleteResponse', [['rules', ctx.lookupTypeArray(elem)]]);
  return rb.end(t);
}

/** DELETE /index: drops the rules with the IDs given ({rule_ids:[...]}), all or none. */
export const deleteIndexRules: Handler = async (c, req, res) => {
  const p = await readPayload(req);
  const ids = stringsField(p, 'rule_ids').map(parseId);
  if (ids.length === 0) throw invalid('no index rule IDs given');
  const dropped = await c.lake.dropIndexRules(ids);
  await respondValue(res, c.format, rulesResponse(dropped));
};

/**
 * The rules a request names: `rules` (the reference's clients: names or
 * IDs), `rule_names`, or `rule_name` (the API contract's).
 */
async function namedRules(c: HandlerContext, p: Payload): Promise<IndexRule[] | null> {
  const refs = [...stringsField(p, 'rules'), ...stringsField(p, 'rule_names')];
  const one = stringField(p, 'rule_name');
  if (one !== '') refs.push(one);
  return refs.length === 0 ? null : c.lake.lookupIndexRules(refs);
}

function runScript(c: HandlerContext) {
  const engine = c.engine();
  return engine.runScript.bind(engine);
}

/** POST /pool/{pool}/branch/{branch}/index: applies rules to the objects (or commits) tags names. */
export const applyIndex: Handler = async (c, req, res) => {
  const p = await readPayload(req);
  const pool = await c.lake.lookupPool(param(req, 'pool'));
  const branch = param(req, 'branch');
  await c.lake.lookupBranch(pool, branch);
  const tags = stringsField(p, 'tags').map(parseId);
  if (tags.length === 0) throw invalid('no data objects given to index (tags)');
  const rules = await namedRules(c, p);
  if (rules === null) throw invalid('no index rules given (rules or rule_name)');
  const { commit } = await c.lake.applyIndexRules(pool, branch, rules, tags, {
    runScript: runScript(c),
  });
  c.metrics.commits.inc({ operation: 'index' });
  await respondValue(res, c.format, commitResponse(commit));
};

/** POST /pool/{pool}/branch/{branch}/index/update: applies rules (all by default) to every object lacking them. */
export const updateIndex: Handler = async (c, req, res) => {
  const p = await readPayload(req);
  const pool = await c.lake.lookupPool(param(req, 'pool'));
  const branch = param(req, 'branch');
  await c.lake.lookupBranch(pool, branch);
  const rules = (await namedRules(c, p)) ?? (await c.lake.indexRuleList());
  const { commit } = await c.lake.updateIndex(pool, branch, rules, { runScript: runScript(c) });
  c.metrics.commits.inc({ operation: 'index' });
  await respondValue(res, c.format, commitResponse(commit));
};
