// Snapshots: the set of data objects live at a commit, and the set
// arithmetic behind commits, reverts and merges.

import { Action } from './commit';
import { conflict, invalid } from './errors';
import { Ksuid } from './ksuid';
import { DataObject } from './object';

/**
 * The live objects at a commit, in the order they were added, and which of
 * them have a live columnar copy. Immutable once built (cached and shared
 * by commit ID).
 */
export class Snapshot {
  constructor(
    private readonly objects: ReadonlyMap<string, DataObject>,
    /** Commits since the nearest commit object that embeds a snapshot. */
    readonly distance: number,
    /** IDs of live objects whose columnar copy is live. */
    private readonly vectors: ReadonlySet<string> = new Set(),
  ) {}

  static readonly empty = new Snapshot(new Map(), 0);

  static of(objects: DataObject[], distance: number, vectors: Ksuid[] = []): Snapshot {
    return new Snapshot(
      new Map(objects.map((o) => [o.id.toString(), o])),
      distance,
      new Set(vectors.map(String)),
    );
  }

  /** Whether the object has a live columnar copy. */
  hasVector(id: Ksuid | string): boolean {
    return this.vectors.has(id.toString());
  }

  /** The IDs of the objects with columnar copies. */
  vectorIds(): Ksuid[] {
    return [...this.vectors].map((id) => this.objects.get(id)!.id);
  }

  /** A mutable copy of the state, for applying actions. */
  state(): SnapshotState {
    return { objects: new Map(this.objects), vectors: new Set(this.vectors) };
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

  /**
   * The snapshot after a commit's actions. Throws the reference's write
   * conflict errors when an action does not fit (a bug or a corrupt log).
   */
  apply(actions: readonly Action[], distance: number): Snapshot {
    const next = this.state();
    applyTo(next, actions);
    return new Snapshot(next.objects, distance, next.vectors);
  }
}

export interface SnapshotState {
  objects: Map<string, DataObject>;
  vectors: Set<string>;
}

/**
 * Applies actions to a snapshot's state. An object that leaves the branch
 * takes its columnar copy's entry with it (the copy stays in storage, for
 * time travel, until vacuum removes both).
 */
export function applyTo(state: SnapshotState, actions: readonly Action[]): void {
  const { objects, vectors } = state;
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
        vectors.delete(id);
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
 * the tip lacks are added back (with their columnar copies, if they had
 * them); columnar copies it added are deleted and ones it deleted added
 * back, where the tip still has their objects.
 */
export function revertActions(
  before: Snapshot,
  commitActions: readonly Action[],
  tip: Snapshot,
): Action[] {
  const added: DataObject[] = [];
  const deleted: string[] = [];
  const addedIds = new Set<string>();
  const vectorsAdded: Ksuid[] = [];
  const vectorsDeleted: Ksuid[] = [];
  for (const a of commitActions) {
    if (a.kind === 'add') {
      added.push(a.object);
      addedIds.add(a.object.id.toString());
    } else if (a.kind === 'delete') {
      const id = a.id.toString();
      if (addedIds.delete(id)) continue; // added and deleted in one commit
      deleted.push(id);
    } else if (a.kind === 'addVector') vectorsAdded.push(a.id);
    else vectorsDeleted.push(a.id);
  }
  const out: Action[] = [];
  const removing = new Set<string>();
  for (const o of added) {
    if (addedIds.has(o.id.toString()) && tip.has(o.id)) {
      out.push({ kind: 'delete', id: o.id });
      removing.add(o.id.toString());
    }
  }
  // A deleted object takes its copy's entry with it.
  for (const id of vectorsAdded) {
    if (!removing.has(id.toString()) && tip.hasVector(id)) out.push({ kind: 'deleteVector', id });
  }
  for (const id of vectorsDeleted) {
    if (tip.has(id) && !tip.hasVector(id)) out.push({ kind: 'addVector', id });
  }
  for (const id of deleted) {
    const o = before.get(id);
    if (!o) {
      throw new Error(
        `corrupt snapshot: ID ${id} is in patch's deleted objects but not in patch's base snapshot`,
      );
    }
    if (!tip.has(id)) {
      out.push({ kind: 'add', object: o });
      if (before.hasVector(id)) out.push({ kind: 'addVector', id: o.id });
    }
  }
  if (out.length === 0) throw invalid('revert commit is empty');
  return out;
}

/**
 * The actions that bring a child branch's changes since base into the
 * parent branch: objects the child added (that the parent lacks) are
 * added; objects the child deleted are deleted. When both branches
 * deleted the same object since base, that is a conflict (each may have
 * rewritten its values elsewhere), as is a child's object the parent has
 * deleted since base.
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
  for (const o of base.list()) {
    if (child.has(o.id)) continue;
    if (!parent.has(o.id)) throw fail(`delete conflict: ${o.id}`);
    deletes.push({ kind: 'delete', id: o.id });
  }
  const adds: Action[] = [];
  for (const o of child.list()) {
    if (base.has(o.id) || parent.has(o.id)) continue;
    if (parentDeleted.has(o.id.toString())) {
      throw fail(`parent branch deletes object that child branch adds: ${o.id}`);
    }
    adds.push({ kind: 'add', object: o });
    if (child.hasVector(o.id)) adds.push({ kind: 'addVector', id: o.id });
  }
  // Columnar copies the child made or dropped since base, of objects both
  // branches still have.
  const vectors: Action[] = [];
  for (const o of child.list()) {
    if (!parent.has(o.id) || !base.has(o.id)) continue;
    const had = base.hasVector(o.id);
    const has = child.hasVector(o.id);
    if (has && !had && !parent.hasVector(o.id)) vectors.push({ kind: 'addVector', id: o.id });
    if (had && !has && parent.hasVector(o.id)) vectors.push({ kind: 'deleteVector', id: o.id });
  }
  if (deletes.length + adds.length + vectors.length === 0)
    throw invalid(`${what}: difference is empty`);
  return [...deletes, ...adds, ...vectors];
}
