// Errors found while compiling a query (after it parsed): unknown names,
// wrong argument counts, illegal assignments, missing pools... The service
// answers them with 400, like parse errors.

export class CompileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompileError';
  }
}

/** Go's %q of a string (JSON's quoting is the same for ordinary text). */
export function goQuoted(s: string): string {
  return JSON.stringify(s);
}

/** A field path as the reference prints it (field.Path.String). */
export function pathString(path: readonly string[]): string {
  return path.length === 0 ? 'this' : path.join('.');
}
