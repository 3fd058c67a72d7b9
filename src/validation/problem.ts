/**
 * A problem of an untrusted document (a scenario file, a journal, a config file, a request body): the
 * JSON path of the offending field and a message that says what to fix. Every reader words its paths
 * the same way, so a person learns one notation: `inputs[2].when.task`, `tools["fetch-weather"]`.
 */

/** One problem: the JSON path of the offending field (`""` for the whole document) and what to fix. */
export interface Problem {
  readonly path: string;
  readonly message: string;
}

/** One step of a path: an array index or an object key. */
export type PathSegment = string | number;

/** `inputs[2].when.task`, `tools["fetch-weather"]`, `` for the root. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** A readable list of problems under a heading that names the document; the path "" means the whole file. */
export function formatProblems(what: string, problems: readonly Problem[]): string {
  const lines = [`${what}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`];
  for (const p of problems) lines.push(`  ${p.path === '' ? '(file)' : p.path}: ${p.message}`);
  return lines.join('\n');
}
