/**
 * The command line of `npm run planted` (scripts/planted.ts). A bad option is a usage error (exit 2)
 * that names it, never a silent default.
 */

export interface PlantedOptions {
  readonly only: readonly string[] | null;
  readonly jobs: number;
  readonly timeoutS: number;
  readonly baseline: boolean;
  readonly output: 'text' | 'json' | 'markdown';
}

export type ParsedArgs =
  | { readonly kind: 'run'; readonly options: PlantedOptions }
  | { readonly kind: 'list' }
  | { readonly kind: 'help' }
  | { readonly kind: 'usage-error'; readonly message: string };

export const USAGE = `usage: npm run planted -- [--only id[,id]] [--jobs N] [--timeout S] [--no-baseline] [--json | --markdown] [--list]

Plants each catalogued bug (tools/planted/) in a scratch copy of the tree, runs the tests that should
catch it and reports caught, missed, stale or error. Exit 0 when every selected bug is caught.

  --only id[,id]  only these bugs
  --jobs N        scratch copies run in parallel (default 1)
  --timeout S     seconds per vitest run before it counts as an error (default 240)
  --no-baseline   skip the run of the tests without any bug
  --json          print the results as JSON
  --markdown      print the table of docs/planted-bugs.md
  --list          list the catalogue and exit`;

export const DEFAULTS: PlantedOptions = { only: null, jobs: 1, timeoutS: 240, baseline: true, output: 'text' };

function positiveInt(flag: string, value: string | undefined): number | string {
  if (value === undefined) return `${flag} needs a value`;
  if (!/^[1-9][0-9]*$/.test(value)) return `${flag} must be a positive integer, not '${value}'`;
  return Number(value);
}

export function parseArgs(argv: readonly string[], knownIds: readonly string[]): ParsedArgs {
  let options: PlantedOptions = DEFAULTS;
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--only': {
        const v = value();
        if (v === undefined || v === '') return { kind: 'usage-error', message: '--only needs a bug id' };
        const ids = v.split(',').filter((id) => id !== '');
        const unknown = ids.filter((id) => !knownIds.includes(id));
        if (unknown.length > 0) return { kind: 'usage-error', message: `--only: unknown bug id ${unknown.join(', ')}` };
        options = { ...options, only: ids };
        break;
      }
      case '--jobs':
      case '--timeout': {
        const n = positiveInt(flag, value());
        if (typeof n === 'string') return { kind: 'usage-error', message: n };
        options = flag === '--jobs' ? { ...options, jobs: n } : { ...options, timeoutS: n };
        break;
      }
      case '--no-baseline':
        options = { ...options, baseline: false };
        break;
      case '--json':
      case '--markdown': {
        const output = flag === '--json' ? 'json' : 'markdown';
        if (options.output !== 'text' && options.output !== output)
          return { kind: 'usage-error', message: '--json and --markdown exclude each other' };
        options = { ...options, output };
        break;
      }
      case '--list':
        list = true;
        break;
      case '--help':
      case '-h':
        return { kind: 'help' };
      default:
        return { kind: 'usage-error', message: `unknown option '${arg}'` };
    }
  }
  return list ? { kind: 'list' } : { kind: 'run', options };
}
