// Snapshots: the set of data objects live at a commit, with the index
// objects and the columnar copy of each, and the set arithmetic behind
// commits, reverts and merges.
//
// An index object lives as long as its data object: deleting a data object
// from a branch drops its indexes too (a revert that brings the object
// back brings them back), so a snapshot never lists an index of an object
// it does not have. The same holds for an object's columnar copy (the
// files stay in storage, for time travel, until vacuum removes them).

import { Action } from './commit';
import { conflict, invalid } from './errors';
import { IndexObject } from './index/object';
import { Ksuid } from './ksuid';
import { DataObject } from './object';

/** Index objects by data object ID, then by rule ID. */
export type IndexMap = Map<string, ReadonlyMap<string, IndexObject>>;

const NO_INDEXES: ReadonlyMap<string, IndexObject> = new Map();

/** What a snapshot holds, as maps and sets to apply actions to. */
export interface SnapshotState {
  objects: Map<string, DataObject>;
  /** Inner maps may be shared with other snapshots: replace them, never change them. */
  indexes: IndexMap;
  /** IDs of live objects whose columnar copy is live. */
  vectors: Set<string>;
}

/**
 * The live objects at a commit, in the order they were added, their index
 * objects and which of them have a live columnar copy. Immutable once
 * built (cached and shared by commit ID).
 */
export class Snapshot {
  constructor(
    private readonly objects: ReadonlyMap<string, DataObject>,
    /** Commits since the nearest commit object that embeds a snapshot. */
    readonly distance: number,
    private readonly indexes: ReadonlyMap<string, ReadonlyMap<string, IndexObject>> = new Map(),
    private readonly vectors: ReadonlySet<string> = new Set(),
  ) {}

  static readonly empty = new Snapshot(new Map(), 0);

  static of(
    objects: DataObject[],
    distance: number,
    indexes: IndexObject[] = [],
    vectors: Ksuid[] = [],
  ): Snapshot {
    const byObject: IndexMap = new Map();
    for (const x of indexes) {
      const id = x.id.toString();
      const m = new Map(byObject.get(id) ?? []);
      m.set(x.rule.id.toString(), x);
      byObject.set(id, m);
    }
    return new Snapshot(
      new Map(objects.map((o) => [o.id.toString(), o])),
      distance,
      byObject,
      new Set(vectors.map(String)),
    );
  }

  /** The index objects of a data object, by rule ID. */
  indexesOf(id: Ksuid | string): ReadonlyMap<string, IndexObject> {
    return this.indexes.get(id.toString()) ?? NO_INDEXES;
  }

  /** Every index object, in the order of their data objects. */
  indexList(): IndexObject[] {
    const out: IndexObject[] = [];
    for (const m of this.indexes.values()) for (const x of m.values()) out.push(x);
    return out;
  }

  /** True when any object has an index (so a scan may consult them). */
  get indexed(): boolean {
    return this.indexes.size > 0;
  }

  /** Whether the object has a live columnar copy. */
  hasVector(id: Ksuid | string): boolean {
    return this.vectors.has(id.toString());
  }

  /** The IDs of the objects with columnar copies. */
  vectorIds(): Ksuid[] {
    return [...this.vectors].map((id) => this.objects.get(id)!.id);
  }

  get size(): number {
    return this.objects.size;
  }

  has(id: Ksuid | string): boolean {
    return this.objects.has(id.toString());
  }

  get(id: Ksuid | string): DataObject | undefined {
    return this.objects.get(id.toString());
  }

  /** The objects in the order they were added. */
  list(): DataObject[] {
    return [...this.objects.values()];
  }

  /** A copy of the state to build another snapshot on (index inner maps shared). */
  state(): SnapshotState {
    return {
      objects: new Map(this.objects),
      indexes: new Map(this.indexes),
      vectors: new Set(this.vectors),
    };
  }

  /** A snapshot of a state (which must not be changed after). */
  static from(state: SnapshotState, distance: number): Snapshot {
    return new Snapshot(state.objects, distance, state.indexes, state.vectors);
  }

  /**
   * The snapshot after a commit's actions. Throws the reference's write
   * conflict errors when an action does not fit (a bug or a corrupt log).
   */
  apply(actions: readonly Action[], distance: number): Snapshot {
    const next = this.state();
    applyTo(next, actions);
    return Snapshot.from(next, distance);
  }
}

/**
 * Applies actions to a snapshot's state. An object that leaves the branch
 * takes its index objects and its columnar copy's entry with it.
 */
export function applyTo(state: SnapshotState, actions: readonly Action[]): void {
  const { objects, indexes, vectors } = state;
  for (const a of actions) {
    switch (a.kind) {
      case 'add': {
        const id = a.object.id.toString();
        if (objects.has(id))
          throw new Error(`${id}: add of a duplicate data object: write conflict`);
        objects.set(id, a.object);
        break;
      }
      case 'delete': {
        const id = a.id.toString();
        if (!objects.delete(id))
          throw new Error(`${id}: delete of a non-existent data object: write conflict`);
        indexes.delete(id);
        vectors.delete(id);
        break;
      }
      case 'addIndex': {
        const id = a.object.id.toString();
        if (!objects.has(id))
          throw new Error(
            `${a.object}: add of an index of a non-existent data object: write conflict`,
          );
        const m = new Map(indexes.get(id) ?? []);
        const rule = a.object.rule.id.toString();
        if (m.has(rule))
          throw new Error(`${a.object}: add of a duplicate index object: write conflict`);
        m.set(rule, a.object);
        indexes.set(id, m);
        break;
      }
      case 'deleteIndex': {
        const id = a.id.toString();
        const m = new Map(indexes.get(id) ?? []);
        if (!m.delete(a.rule.toString()))
          throw new Error(
            `${a.rule}/${a.id}: delete of a non-existent index object: write conflict`,
          );
        if (m.size === 0) indexes.delete(id);
        else indexes.set(id, m);
        break;
      }
      case 'addVector': {
        const id = a.id.toString();
        if (vectors.has(id) || !objects.has(id))
          throw new Error(`${id}: add of a duplicate vector of data object: write conflict`);
        vectors.add(id);
        break;
      }
      case 'deleteVector': {
        const id = a.id.toString();
        if (!vectors.delete(id))
          throw new Error(`${id}: delete of a non-present vector: write conflict`);
        break;
      }
    }
  }
}

/**
 * The actions that undo a commit on the branch tip: objects the commit
 * added that the tip still has are deleted, and objects it deleted that
 * the tip lacks are added back (with the indexes and columnar copy they
 * had); index objects and columnar copies it added are deleted, and those
 * it deleted added back, where the tip still has their objects.
 */
export function revertActions(
  before: Snapshot,
  commitActions: readonly Action[],
  tip: Snapshot,
): Action[] {
  const added: DataObject[] = [];
  const deleted: string[] = [];
  const addedIds = new Set<string>();
  const addedIndexes: IndexObject[] = [];
  const deletedIndexes: { rule: Ksuid; id: Ksuid }[] = [];
  const vectorsAdded: Ksuid[] = [];
  const vectorsDeleted: Ksuid[] = [];
  for (const a of commitActions) {
    switch (a.kind) {
      case 'add':
        added.push(a.object);
        addedIds.add(a.object.id.toString());
        break;
      case 'delete': {
        const id = a.id.toString();
        if (addedIds.delete(id)) break; // added and deleted in one commit
        deleted.push(id);
        break;
      }
      case 'addIndex':
        addedIndexes.push(a.object);
        break;
      case 'deleteIndex':
        deletedIndexes.push(a);
        break;
      case 'addVector':
        vectorsAdded.push(a.id);
        break;
      case 'deleteVector':
        vectorsDeleted.push(a.id);
        break;
    }
  }
  const deletes: Action[] = [];
  const gone = new Set<string>();
  for (const o of added) {
    if (addedIds.has(o.id.toString()) && tip.has(o.id)) {
      deletes.push({ kind: 'delete', id: o.id });
      gone.add(o.id.toString());
    }
  }
  // A deleted object takes its indexes and its copy's entry with it.
  for (const x of addedIndexes) {
    if (gone.has(x.id.toString())) continue;
    if (tip.indexesOf(x.id).has(x.rule.id.toString()))
      deletes.push({ kind: 'deleteIndex', rule: x.rule.id, id: x.id });
  }
  for (const id of vectorsAdded) {
    if (!gone.has(id.toString()) && tip.hasVector(id)) deletes.push({ kind: 'deleteVector', id });
  }
  const adds: Action[] = [];
  const back = new Set<string>();
  for (const id of vectorsDeleted) {
    if (tip.has(id) && !tip.hasVector(id)) adds.push({ kind: 'addVector', id });
  }
  for (const id of deleted) {
    const o = before.get(id);
    if (!o) {
      throw new Error(
        `corrupt snapshot: ID ${id} is in patch's deleted objects but not in patch's base snapshot`,
      );
    }
    if (!tip.has(id)) {
      adds.push({ kind: 'add', object: o });
      back.add(id);
      for (const x of before.indexesOf(id).values()) adds.push({ kind: 'addIndex', object: x });
      if (before.hasVector(id)) adds.push({ kind: 'addVector', id: o.id });
    }
  }
  for (const d of deletedIndexes) {
    const id = d.id.toString();
    if (back.has(id) || !tip.has(id) || tip.indexesOf(id).has(d.rule.toString())) continue;
    const x = before.indexesOf(id).get(d.rule.toString());
    if (!x) {
      throw new Error(
        `corrupt snapshot: index object ${d.rule}/${id} is in patch's deleted index objects but not in patch's base snapshot`,
      );
    }
    adds.push({ kind: 'addIndex', object: x });
  }
  const out = [...deletes, ...adds];
  if (out.length === 0) throw invalid('revert commit is empty');
  return out;
}

/**
 * The actions that bring a child branch's changes since base into the
 * parent branch: objects the child added (that the parent lacks) are
 * added; objects the child deleted are deleted. When both branches
 * deleted the same object since base, that is a conflict (each may have
 * rewritten its values elsewhere), as is a child's object the parent has
 * deleted since base. Index objects and columnar copies follow their data
 * objects: those the child made since base are added where the parent
 * lacks them, and those it dropped are deleted, for the objects the
 * parent keeps.
 */
export function mergeActions(
  base: Snapshot,
  child: Snapshot,
  parent: Snapshot,
  parentDeleted: ReadonlySet<string>,
  childName: string,
  parentName: string,
): Action[] {
  const what = `error merging ${JSON.stringify(childName)} into ${JSON.stringify(parentName)}`;
  const fail = (msg: string) => conflict(`${what}: ${msg}`);
  const deletes: Action[] = [];
  const deleted = new Set<string>();
  for (const o of base.list()) {
    if (child.has(o.id)) continue;
    if (!parent.has(o.id)) throw fail(`delete conflict: ${o.id}`);
    deletes.push({ kind: 'delete', id: o.id });
    deleted.add(o.id.toString());
  }
  const adds: Action[] = [];
  const added = new Set<string>();
  for (const o of child.list()) {
    if (base.has(o.id) || parent.has(o.id)) continue;
    if (parentDeleted.has(o.id.toString())) {
      throw fail(`parent branch deletes object that child branch adds: ${o.id}`);
    }
    adds.push({ kind: 'add', object: o });
    if (child.hasVector(o.id)) adds.push({ kind: 'addVector', id: o.id });
    added.add(o.id.toString());
  }
  for (const o of child.list()) {
    const id = o.id.toString();
    if (deleted.has(id) || !(parent.has(id) || added.has(id))) continue;
    // Index objects of the objects the merged branch will have.
    const have = parent.indexesOf(id);
    const had = base.indexesOf(id);
    for (const [rule, x] of child.indexesOf(id)) {
      if (!had.has(rule) && !have.has(rule)) adds.push({ kind: 'addIndex', object: x });
    }
    for (const rule of had.keys()) {
      if (!child.indexesOf(id).has(rule) && have.has(rule))
        deletes.push({ kind: 'deleteIndex', rule: Ksuid.mustParse(rule), id: o.id });
    }
    // Columnar copies the child made or dropped since base, of objects
    // both branches still have.
    if (!parent.has(id) || !base.has(id)) continue;
    const hadVector = base.hasVector(id);
    const hasVector = child.hasVector(id);
    if (hasVector && !hadVector && !parent.hasVector(id))
      adds.push({ kind: 'addVector', id: o.id });
    if (hadVector && !hasVector && parent.hasVector(id))
      deletes.push({ kind: 'deleteVector', id: o.id });
  }
  if (deletes.length + adds.length === 0) throw invalid(`${what}: difference is empty`);
  return [...deletes, ...adds];
}
