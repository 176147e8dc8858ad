// Snapshots: the set of data objects live at a commit, and the set
// arithmetic behind commits, reverts and merges.

import { Action } from './commit';
import { conflict, invalid } from './errors';
import { Ksuid } from './ksuid';
import { DataObject } from './object';

/**
 * The live objects at a commit, in the order they were added. Immutable
 * once built (cached and shared by commit ID).
 */
export class Snapshot {
  constructor(
    private readonly objects: ReadonlyMap<string, DataObject>,
    /** Commits since the nearest commit object that embeds a snapshot. */
    readonly distance: number,
  ) {}

  static readonly empty = new Snapshot(new Map(), 0);

  static of(objects: DataObject[], distance: number): Snapshot {
    return new Snapshot(new Map(objects.map((o) => [o.id.toString(), o])), distance);
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
    const next = new Map(this.objects);
    applyTo(next, actions);
    return new Snapshot(next, distance);
  }
}

export function applyTo(objects: Map<string, DataObject>, actions: readonly Action[]): void {
  for (const a of actions) {
    if (a.kind === 'add') {
      const id = a.object.id.toString();
      if (objects.has(id)) throw new Error(`${id}: add of a duplicate data object: write conflict`);
      objects.set(id, a.object);
    } else {
      const id = a.id.toString();
      if (!objects.delete(id))
        throw new Error(`${id}: delete of a non-existent data object: write conflict`);
    }
  }
}

/**
 * The actions that undo a commit on the branch tip: objects the commit
 * added that the tip still has are deleted, and objects it deleted that
 * the tip lacks are added back.
 */
export function revertActions(
  before: Snapshot,
  commitActions: readonly Action[],
  tip: Snapshot,
): Action[] {
  const added: DataObject[] = [];
  const deleted: string[] = [];
  const addedIds = new Set<string>();
  for (const a of commitActions) {
    if (a.kind === 'add') {
      added.push(a.object);
      addedIds.add(a.object.id.toString());
    } else {
      const id = a.id.toString();
      if (addedIds.delete(id)) continue; // added and deleted in one commit
      deleted.push(id);
    }
  }
  const out: Action[] = [];
  for (const o of added) {
    if (addedIds.has(o.id.toString()) && tip.has(o.id)) out.push({ kind: 'delete', id: o.id });
  }
  for (const id of deleted) {
    const o = before.get(id);
    if (!o) {
      throw new Error(
        `corrupt snapshot: ID ${id} is in patch's deleted objects but not in patch's base snapshot`,
      );
    }
    if (!tip.has(id)) out.push({ kind: 'add', object: o });
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
  }
  if (deletes.length + adds.length === 0) throw invalid(`${what}: difference is empty`);
  return [...deletes, ...adds];
}
