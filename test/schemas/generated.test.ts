/**
 * The committed JSON Schemas are exactly what `npm run schemas` writes from the zod schemas today, and
 * what they promise about themselves (draft 2020-12, a stable `$id`, a title and a description).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSchemaFiles } from '../../scripts/generate-schemas.ts';
import { REPO_ROOT } from './json-schema.ts';

const files = renderSchemaFiles();

describe('schemas/', () => {
  it('writes the scenario and the report schema', () => {
    expect(files.map((f) => f.path)).toEqual(['schemas/scenario.schema.json', 'schemas/report.schema.json']);
  });

  for (const file of files) {
    it(`${file.path} is up to date with its zod schema`, () => {
      const committed = readFileSync(`${REPO_ROOT}${file.path}`, 'utf8');
      expect(committed === file.text, `${file.path} differs from its zod schema; run \`npm run schemas\``).toBe(true);
    });

    it(`${file.path} opens with $schema, $id, title and description`, () => {
      const doc = JSON.parse(file.text) as Record<string, unknown>;
      expect(Object.keys(doc).slice(0, 4)).toEqual(['$schema', '$id', 'title', 'description']);
      expect(doc['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(doc['$id']).toBe(file.path.slice('schemas/'.length));
      expect(file.text).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    });
  }

  it('renders the same text twice', () => {
    expect(renderSchemaFiles()).toEqual(files);
  });
});
