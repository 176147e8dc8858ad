// Data sources: what `from`, `file` and `get` read, and the sources of the
// legs of `from ( ... )`:
//
//     from pool[@commit][:meta] [tap] [at ID]     from :pools
//     from glob*  from /regexp/  from *
//     file path [format f] [order k1,k2[:asc|:desc]]
//     get http(s)://... [format f] [order ...]
//     pool ... / file ... / get ... / pass        (in from legs)

import type { From, Pass, Pool, PoolSpec, SortKey, Source } from '../ast';
import { SQLParser } from './sql';

export abstract class SourceParser extends SQLParser {
  /** File / Get / Pool / Pass */
  protected fromSource(): Source | null {
    return this.file() ?? this.get() ?? this.poolSource() ?? this.pass();
  }

  /** `file ...`, `get ...` or `from ...` as a single-source From. */
  protected fromOp(): From | null {
    const source = this.file() ?? this.get() ?? this.fromPool();
    return source === null
      ? null
      : { kind: 'From', trunks: [{ kind: 'Trunk', source, seq: null }] };
  }

  /** `file path [format f] [order keys]` */
  private file(): Source | null {
    const start = this.pos;
    if (this.kw('file')) {
      const path = this.path();
      if (path !== null)
        return { kind: 'File', path, format: this.formatArg(), sortKey: this.sortKeyArg() };
    }
    this.pos = start;
    return null;
  }

  /** `get url [format f] [order keys]` */
  private get(): Source | null {
    const start = this.pos;
    if (this.kw('get')) {
      const url = this.url();
      if (url !== null)
        return { kind: 'HTTP', url, format: this.formatArg(), sortKey: this.sortKeyArg() };
    }
    this.pos = start;
    return null;
  }

  /** `from poolspec [at id]` */
  private fromPool(): Pool | null {
    return this.after('from', () => this.poolBody());
  }

  /** `pool poolspec [at id]` (in a from leg) */
  private poolSource(): Pool | null {
    return this.after('pool', () => this.poolBody());
  }

  /** `pass` */
  protected pass(): Pass | null {
    const start = this.pos;
    if (this.lit('pass') && this.notKeyWordChar()) return { kind: 'Pass' };
    this.pos = start;
    return null;
  }

  /** `_ format name` */
  private formatArg(): string | null {
    const start = this.pos;
    const name = this.sp1() ? this.after('format', () => this.identifierName()) : null;
    if (name === null) this.pos = start;
    return name;
  }

  /** `_ order fields[:asc|:desc]` */
  private sortKeyArg(): SortKey | null {
    const start = this.pos;
    if (this.sp1() && this.kw('order')) {
      const keys = this.fieldExprs();
      if (keys !== null) {
        const order = this.lit(':asc') ? 'asc' : this.lit(':desc') ? 'desc' : 'asc';
        return { kind: 'SortKey', keys, order };
      }
    }
    this.pos = start;
    return null;
  }

  /** PoolSpec [_ at KSUID] */
  private poolBody(): Pool | null {
    const spec = this.poolSpec();
    if (spec === null) return null;
    let at: string | null = null;
    const save = this.pos;
    if (this.sp1() && this.kw('at')) at = this.ksuid();
    if (at === null) this.pos = save;
    return { kind: 'Pool', spec, at };
  }

  /** name[@commit][:meta][ tap], or :meta alone (a lake meta-query). */
  private poolSpec(): PoolSpec | null {
    const start = this.pos;
    const pool = this.poolName();
    if (pool !== null) {
      let commit: string | null = null;
      let save = this.pos;
      if (this.lit('@')) commit = this.poolNameString();
      if (commit === null) this.pos = save;
      const meta = this.poolMeta();
      let tap = false;
      save = this.pos;
      if (this.sp1() && this.lit('tap')) tap = true;
      else this.pos = save;
      return { pool, commit, meta, tap };
    }
    this.pos = start;
    const meta = this.poolMeta();
    return meta === null ? null : { pool: null, commit: null, meta, tap: false };
  }

  /** `:name` */
  private poolMeta(): string | null {
    const start = this.pos;
    if (this.lit(':')) {
      const id = this.poolIdentifier();
      if (id !== null) return id;
    }
    this.pos = start;
    return null;
  }

  /** A glob, `*`, a regexp or a name. */
  private poolName(): PoolSpec['pool'] {
    const glob = this.globPattern();
    if (glob !== null) return { kind: 'Glob', pattern: glob };
    const start = this.pos;
    if (this.lit('*') && this.not(() => this.exprGuard())) return { kind: 'Glob', pattern: '*' };
    this.pos = start;
    const re = this.regexp();
    if (re !== null) return re;
    const name = this.poolNameString();
    return name === null ? null : { kind: 'String', text: name };
  }
}
