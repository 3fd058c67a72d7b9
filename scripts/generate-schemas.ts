/**
 * `npm run schemas`: writes the JSON Schemas of the scenario file and of the run report, generated from
 * their zod schemas, so that editors and other tools check the same shapes the simulator does.
 *
 *   npx tsx scripts/generate-schemas.ts [--check]
 *
 *  - schemas/scenario.schema.json  from src/sim/scenario/schema.ts (docs/spec.md §12.2), the input side:
 *    what a file may contain before defaults are applied.
 *  - schemas/report.schema.json    from src/sim/report/schema.ts (docs/spec.md §12.3), the document
 *    `homeagent sim run --json` prints.
 *
 * Both are JSON Schema draft 2020-12, with a relative `$id` (the file's own name) so that they resolve
 * wherever they are read from. The output is a function of the zod schemas alone: two-space JSON and a
 * newline, keys in the order the schemas declare them. `--check` writes nothing and exits 1 when a
 * committed file differs from what would be written (test/schemas/generated.test.ts checks the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { reportSchema } from '../src/sim/report/schema.ts';
import { scenarioSchema } from '../src/sim/scenario/schema.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

export interface SchemaFile {
  /** Relative to the repository root. */
  readonly path: string;
  readonly text: string;
}

interface Header {
  readonly id: string;
  readonly title: string;
  readonly description: string;
}

const SCENARIO: Header = {
  id: 'scenario.schema.json',
  title: 'homeagent scenario file',
  description:
    'A scenario of the homeagent simulator, "version": 1 (docs/scenario-format.md). This schema checks the shape ' +
    'of every field: the keys (unknown keys are refused), types, patterns and bounds. The rules that relate ' +
    'fields or entries to each other are checked by `homeagent sim run` and the other commands that read the ' +
    'file, which name every problem by its path: level only on interrupts, at most one of at/when/afterTerminal, ' +
    'unique ids, references to declared inputs, residents, channels, outputs and tools, min ≤ max in a range, ' +
    'the names inside expect, the total number of inputs, and the nesting depth of tool arguments and expected values.',
};

const REPORT: Header = {
  id: 'report.schema.json',
  title: 'homeagent run report',
  description:
    'The run report that `homeagent sim run --json` prints, "reportVersion": 1 (docs/report.md). The document ' +
    'printed on exit 2 (unusable input: reportVersion, ok and problems) is not a report and does not match.',
};

/** The two schema files, as `npm run schemas` writes them. */
export function renderSchemaFiles(): SchemaFile[] {
  return [
    { path: 'schemas/scenario.schema.json', text: render(scenarioSchema, 'input', SCENARIO) },
    { path: 'schemas/report.schema.json', text: render(reportSchema, 'output', REPORT) },
  ];
}

function render(schema: z.ZodType, io: 'input' | 'output', header: Header): string {
  const { $schema, ...body } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: representedByMetadata,
  });
  if ($schema !== DRAFT_2020_12) throw new Error(`zod wrote $schema ${String($schema)}, expected ${DRAFT_2020_12}`);
  const document = { $schema, $id: header.id, title: header.title, description: header.description, ...body };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * A check zod cannot translate (a custom check) is accepted only when its metadata supplies its JSON
 * Schema form, which zod then copies in; anything else would silently become "any value".
 */
function representedByMetadata(ctx: { zodSchema: z.core.$ZodType; path: (string | number)[]; message: string }) {
  const meta = z.globalRegistry.get(ctx.zodSchema) ?? {};
  if ('anyOf' in meta || 'type' in meta) return 'any' as const;
  throw new Error(`${ctx.message} (at ${ctx.path.join('.') || 'the root'}); give it its JSON Schema form in .meta()`);
}

function main(args: readonly string[]): number {
  const check = args.includes('--check');
  let stale = 0;
  for (const file of renderSchemaFiles()) {
    const target = join(REPO_ROOT, file.path);
    if (check) {
      let current: string | null = null;
      try {
        current = readFileSync(target, 'utf8');
      } catch {
        current = null;
      }
      if (current !== file.text) {
        stale += 1;
        process.stderr.write(`${file.path} is out of date; run \`npm run schemas\`\n`);
      }
    } else {
      writeFileSync(target, file.text);
      process.stdout.write(`wrote ${file.path} (${Buffer.byteLength(file.text)} bytes)\n`);
    }
  }
  return stale === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  process.exitCode = main(process.argv.slice(2));
}
