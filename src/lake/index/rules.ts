// Index rules: what an index object of a data object holds. As in the
// reference there are three kinds, each with a creation time, an ID and a
// name (several rules may share a name; a name then stands for the set):
//
//   field  the distinct values of one field, each with its count and the
//          ordinals of the first and last value holding it
//   type   the distinct values of one type found anywhere in the values
//   agg    the output of a Zed script run over the object's values
//
// Rules are lake-wide (rulestore.ts keeps them); an index object embeds
// the rule it was made by, so dropping a rule leaves its indexes usable.

import { goQuote } from '../../formats/zson/gotext';
import { parseType } from '../../formats/zson';
import { TypeContext } from '../../zed/context';
import { formatType } from '../../zed/typestring';
import { nowNs } from '../config';
import { invalid } from '../errors';
import { Ksuid } from '../ksuid';

interface RuleBase {
  /** Creation time, ns since the epoch. */
  ts: bigint;
  id: Ksuid;
  name: string;
}

export interface FieldRule extends RuleBase {
  kind: 'field';
  /** The indexed field paths (zlake indexes one). */
  fields: string[][];
}

export interface TypeRule extends RuleBase {
  kind: 'type';
  /** The indexed type in ZSON type syntax, normalised ("ip", "{a:int64}"). */
  type: string;
}

export interface AggRule extends RuleBase {
  kind: 'agg';
  /** The Zed script whose output is the index. */
  script: string;
}

export type IndexRule = FieldRule | TypeRule | AggRule;

/** A rule as a client asks for it: a name and exactly one of fields, type or script. */
export interface RuleSpec {
  name: string;
  fields?: string[][];
  type?: string;
  script?: string;
  /** The reference's clients make the ID and time; zlake's leave them to the server. */
  id?: Ksuid;
  ts?: bigint;
}

/** A dotted field path as the reference prints it ("this" for the empty path). */
export function pathText(path: readonly string[]): string {
  return path.length === 0 ? 'this' : path.join('.');
}

/** The rule's one-line description (`rule <id> field a.b`), as `zed index ls` prints it. */
export function describeRule(r: IndexRule): string {
  switch (r.kind) {
    case 'field':
      return `rule ${r.id} field ${r.fields.map(pathText).join(',')}`;
    case 'type':
      return `rule ${r.id} type ${r.type}`;
    case 'agg':
      return `rule ${r.id} agg ${goQuote(r.script)}`;
  }
}

/** True when two rules make the same index objects (the reference's Equivalent). */
export function equivalent(a: IndexRule, b: IndexRule): boolean {
  if (a.kind === 'field' && b.kind === 'field') {
    return (
      a.fields.length === b.fields.length &&
      a.fields.every(
        (p, i) => p.length === b.fields[i].length && p.every((f, k) => f === b.fields[i][k]),
      )
    );
  }
  if (a.kind === 'type' && b.kind === 'type') return a.type === b.type;
  if (a.kind === 'agg' && b.kind === 'agg') return a.script === b.script;
  return false;
}

/**
 * Makes a rule from a client's spec, checking it: a field rule names one
 * non-empty field path, a type rule's type parses, and an agg rule's
 * script passes checkScript (the query layer's parser: the lake knows no
 * query language).
 */
export function makeRule(spec: RuleSpec, checkScript: (script: string) => void): IndexRule {
  const name = spec.name;
  if (typeof name !== 'string' || name === '') throw invalid('index rule must have a name');
  const given = [spec.fields, spec.type, spec.script].filter((x) => x !== undefined).length;
  if (given !== 1) {
    throw invalid(
      `index rule ${goQuote(name)}: exactly one of fields, type or script must be given`,
    );
  }
  const base = { ts: spec.ts ?? nowNs(), id: spec.id ?? Ksuid.generate(), name };
  if (spec.fields !== undefined) {
    const fields = spec.fields;
    if (fields.length === 0 || fields.some((p) => p.length === 0 || p.some((f) => f === ''))) {
      throw invalid('field index rule requires field(s) argument');
    }
    if (fields.length > 1) {
      // The reference's own rule constructor refuses (panics on) several.
      throw invalid(
        `field index rule ${goQuote(name)}: only one field may be indexed: ${fields.map(pathText).join(',')}`,
      );
    }
    return { kind: 'field', ...base, fields: fields.map((p) => [...p]) };
  }
  if (spec.type !== undefined) {
    if (spec.type.trim() === '') throw invalid('type index rule requires type argument');
    let text: string;
    try {
      text = formatType(parseType(new TypeContext(), spec.type));
    } catch (e) {
      throw invalid((e as Error).message);
    }
    return { kind: 'type', ...base, type: text };
  }
  const script = spec.script!;
  if (script.trim() === '') throw invalid('agg index rule requires a script argument');
  checkScript(script);
  return { kind: 'agg', ...base, script };
}

// ---- the register's JSON ----

interface RuleJSON {
  kind: 'field' | 'type' | 'agg';
  ts: string;
  id: string;
  name: string;
  fields?: string[][];
  type?: string;
  script?: string;
}

export function ruleToJSON(r: IndexRule): RuleJSON {
  const base = { kind: r.kind, ts: r.ts.toString(), id: r.id.toString(), name: r.name };
  switch (r.kind) {
    case 'field':
      return { ...base, fields: r.fields };
    case 'type':
      return { ...base, type: r.type };
    case 'agg':
      return { ...base, script: r.script };
  }
}

export function ruleFromJSON(j: RuleJSON): IndexRule {
  const base = { ts: BigInt(j.ts), id: Ksuid.mustParse(j.id), name: j.name };
  switch (j.kind) {
    case 'field':
      return { kind: 'field', ...base, fields: j.fields ?? [] };
    case 'type':
      return { kind: 'type', ...base, type: j.type ?? '' };
    case 'agg':
      return { kind: 'agg', ...base, script: j.script ?? '' };
  }
  throw new Error(`corrupt index rule: ${JSON.stringify(j)}`);
}

/** The index rules register's value: every rule, as one JSON array. */
export function encodeRules(rules: readonly IndexRule[]): string {
  return JSON.stringify(rules.map(ruleToJSON));
}

export function decodeRules(s: string | null): IndexRule[] {
  if (s === null) return [];
  return (JSON.parse(s) as RuleJSON[]).map(ruleFromJSON);
}

/** Rules by name, then by creation time within a name (the reference's listing order). */
export function sortRules(rules: readonly IndexRule[]): IndexRule[] {
  return [...rules].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0,
  );
}
