/**
 * The committed JSON Schemas (schemas/*.schema.json, written by `npm run schemas`) compiled by Ajv, a JSON
 * Schema validator independent of zod, in strict mode: a schema that uses an unknown keyword or an
 * ambiguous construct fails to compile, so what passes here is what editors and other tools read.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type SchemaName = 'scenario' | 'report';

const ajv = new Ajv2020({ strict: true, allErrors: true });

function compile(name: SchemaName): ValidateFunction {
  const schema: unknown = JSON.parse(readFileSync(`${REPO_ROOT}schemas/${name}.schema.json`, 'utf8'));
  return ajv.compile(schema as object);
}

const compiled: Readonly<Record<SchemaName, ValidateFunction>> = {
  scenario: compile('scenario'),
  report: compile('report'),
};

/** Ajv's verdict as a list of readable problems, empty when the document is valid. */
export function schemaProblems(name: SchemaName, document: unknown): string[] {
  const validate = compiled[name];
  if (validate(document)) return [];
  return (validate.errors ?? []).map(describe);
}

function describe(e: ErrorObject): string {
  return `${e.instancePath === '' ? '(root)' : e.instancePath} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`;
}
