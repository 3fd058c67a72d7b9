/**
 * The command line that re-runs one simulated run exactly, as every report and failure prints it
 * (docs/spec.md §12.1). The commands and the library entry (src/index.ts) build it here, so a failure
 * found through either names the same command.
 */

/** POSIX shell quoting, only when needed, so that printed command lines can be pasted as they are. */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command line that re-runs one seed exactly: the file as the user wrote it, the seed, and
 * `--shuffle-ties` and `--swarm` when they were used (they change the run). Output flags (`--json`,
 * `--trace`) do not change the run and are left out. It starts with `npx` so that it runs as printed
 * in a checkout after `npm ci`, where the bin is not on PATH (and wherever the package is installed).
 */
export function reproduceCommand(file: string, seed: number, shuffleTies: boolean, swarm = false): string {
  return `npx homeagent sim run ${shellQuote(file)} --seed ${seed}${shuffleTies ? ' --shuffle-ties' : ''}${swarm ? ' --swarm' : ''}`;
}
