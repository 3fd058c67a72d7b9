/**
 * A call's arguments checked against its tool's JSON Schema (docs/spec.md §13.3): the JSON text parsed
 * (an empty text is `{}`), anything but an object refused, and a mismatch described as
 * `<JSON Pointer> <problem>` naming the field, with RFC 6901 escapes. The schema compiler follows the
 * schema's draft (07 by default, 2019-09, 2020-12), ignores formats and unknown keywords, and says why a
 * schema cannot be compiled.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { checkArguments, SchemaCompiler, type ArgumentsValidator } from '../../../src/tools/mcp/mcp-arguments.ts';

function validator(schema: Record<string, unknown>): ArgumentsValidator {
  const { validate, error } = new SchemaCompiler().compile(schema);
  expect(error).toBeNull();
  return validate;
}

/** A validator that refuses everything with the given errors (as a hand-written check would). */
function refusing(errors: Partial<ErrorObject>[] | null | undefined): ValidateFunction {
  const f = (() => false) as unknown as ValidateFunction;
  if (errors !== undefined) f.errors = errors as ErrorObject[] | null;
  return f;
}

const problem = (text: string, schema: Record<string, unknown>): string => {
  const checked = checkArguments(text, validator(schema));
  if (checked.kind !== 'invalid') throw new Error(`expected a refusal, got ${JSON.stringify(checked)}`);
  return checked.problem;
};

describe('checkArguments: the JSON text', () => {
  it('reads an empty or blank text as {}', () => {
    expect(checkArguments('', null)).toEqual({ kind: 'ok', args: {} });
    expect(checkArguments(' \n\t', null)).toEqual({ kind: 'ok', args: {} });
    expect(checkArguments('', validator({ type: 'object', required: ['a'] }))).toEqual({
      kind: 'invalid',
      problem: '/a is required',
    });
  });

  it('refuses a text that is not JSON, with the parser message', () => {
    let message = '';
    try {
      JSON.parse('{"a":');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(checkArguments('{"a":', null)).toEqual({ kind: 'invalid', problem: `not JSON (${message})` });
  });

  it('refuses anything but an object, whatever the schema', () => {
    for (const text of ['[]', '[1]', 'null', '3', '"s"', 'true'])
      expect(checkArguments(text, null)).toEqual({ kind: 'invalid', problem: 'must be object' });
  });

  it('passes an object through unchecked when there is no validator', () => {
    expect(checkArguments('{"a":"anything","b":[1]}', null)).toEqual({ kind: 'ok', args: { a: 'anything', b: [1] } });
  });

  it('passes an object that matches the schema', () => {
    const v = validator({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
    expect(checkArguments(' {"a": 2} ', v)).toEqual({ kind: 'ok', args: { a: 2 } });
  });
});

describe('checkArguments: describing a mismatch', () => {
  const SCHEMA = {
    type: 'object',
    properties: {
      a: { type: 'number' },
      o: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'], additionalProperties: false },
    },
    required: ['a'],
    additionalProperties: false,
  };

  it('names a missing field by its pointer, at the top and nested', () => {
    expect(problem('{}', SCHEMA)).toBe('/a is required');
    expect(problem('{"a":1,"o":{}}', SCHEMA)).toBe('/o/x is required');
  });

  it('names a field that is not allowed, at the top and nested', () => {
    expect(problem('{"a":1,"zz":0}', SCHEMA)).toBe('/zz is not allowed');
    expect(problem('{"a":1,"o":{"x":"s","y":0}}', SCHEMA)).toBe('/o/y is not allowed');
  });

  it('names a field of the wrong type with the validator message', () => {
    expect(problem('{"a":"one"}', SCHEMA)).toBe('/a must be number');
    expect(problem('{"a":1,"o":{"x":2}}', SCHEMA)).toBe('/o/x must be string');
    expect(problem('{"a":1,"o":[]}', SCHEMA)).toBe('/o must be object');
  });

  it('says the problem alone when it is about the whole object', () => {
    expect(problem('{"a":1}', { type: 'object', minProperties: 2 })).toBe('must NOT have fewer than 2 properties');
    expect(problem('{}', { type: 'array' })).toBe('must be array');
  });

  it('reports the first problem only', () => {
    expect(problem('{"a":"one","o":[]}', SCHEMA)).toBe('/a must be number');
  });

  it('escapes "~" and "/" in a field name (RFC 6901), every one of them', () => {
    expect(problem('{}', { type: 'object', required: ['a/b/c~d~e'] })).toBe('/a~1b~1c~0d~0e is required');
    expect(problem('{"~/~/":1}', { type: 'object', additionalProperties: false })).toBe('/~0~1~0~1 is not allowed');
  });

  it('uses the message, or the keyword when there is none; and a generic text when there is no error', () => {
    const check = (errors: Partial<ErrorObject>[] | null | undefined): unknown =>
      checkArguments('{}', refusing(errors));
    expect(check([{ keyword: 'custom', instancePath: '/f', params: {} }])).toEqual({
      kind: 'invalid',
      problem: '/f fails custom',
    });
    expect(check([{ keyword: 'custom', instancePath: '', params: {} }])).toEqual({
      kind: 'invalid',
      problem: 'fails custom',
    });
    expect(check([{ keyword: 'custom', instancePath: '/f', params: {}, message: 'is odd' }])).toEqual({
      kind: 'invalid',
      problem: '/f is odd',
    });
    expect(check([])).toEqual({ kind: 'invalid', problem: 'do not match the schema' });
    expect(check(null)).toEqual({ kind: 'invalid', problem: 'do not match the schema' });
    expect(check(undefined)).toEqual({ kind: 'invalid', problem: 'do not match the schema' });
  });

  it('names the field of required/additionalProperties only when the error names it', () => {
    const check = (e: Partial<ErrorObject>): unknown => checkArguments('{}', refusing([e]));
    expect(check({ keyword: 'required', instancePath: '/o', params: {}, message: 'misses a field' })).toEqual({
      kind: 'invalid',
      problem: '/o misses a field',
    });
    expect(
      check({
        keyword: 'additionalProperties',
        instancePath: '',
        params: { additionalProperty: 3 },
        message: 'has more',
      }),
    ).toEqual({
      kind: 'invalid',
      problem: 'has more',
    });
    expect(check({ keyword: 'other', instancePath: '', params: { missingProperty: 'p' }, message: 'm' })).toEqual({
      kind: 'invalid',
      problem: 'm',
    });
    expect(check({ keyword: 'other', instancePath: '', params: { additionalProperty: 'p' }, message: 'm' })).toEqual({
      kind: 'invalid',
      problem: 'm',
    });
  });
});

describe('SchemaCompiler', () => {
  const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';
  const DRAFT_2019 = 'https://json-schema.org/draft/2019-09/schema';
  const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
  /** `prefixItems` exists from 2020-12 on; `dependentRequired` from 2019-09 on; before, both are unknown. */
  const tuple = (uri?: string): Record<string, unknown> => ({
    ...(uri === undefined ? {} : { $schema: uri }),
    type: 'object',
    properties: { p: { type: 'array', prefixItems: [{ type: 'number' }] } },
    dependentRequired: { a: ['b'] },
  });

  it('follows a 2020-12 schema', () => {
    expect(problem('{"p":["x"]}', tuple(DRAFT_2020))).toBe('/p/0 must be number');
    expect(problem('{"a":1}', tuple(DRAFT_2020))).toBe('must have property b when property a is present');
  });

  it('follows a 2019-09 schema', () => {
    expect(checkArguments('{"p":["x"]}', validator(tuple(DRAFT_2019)))).toEqual({ kind: 'ok', args: { p: ['x'] } });
    expect(problem('{"a":1}', tuple(DRAFT_2019))).toBe('must have property b when property a is present');
  });

  it('reads a schema as draft-07 when it names that draft or none', () => {
    for (const uri of [DRAFT_07, undefined]) {
      const v = validator(tuple(uri));
      expect(checkArguments('{"p":["x"],"a":1}', v)).toEqual({ kind: 'ok', args: { p: ['x'], a: 1 } });
    }
    const old = { type: 'object', properties: { p: { type: 'array', items: [{ type: 'number' }] } } };
    expect(problem('{"p":["x"]}', old)).toBe('/p/0 must be number');
  });

  it('cannot compile a schema of an unknown draft, nor one whose $schema is not a string', () => {
    expect(new SchemaCompiler().compile(tuple('https://example.com/my-meta'))).toEqual({
      validate: null,
      error: 'no schema with key or ref "https://example.com/my-meta"',
    });
    expect(new SchemaCompiler().compile({ ...tuple(), $schema: 2020 })).toEqual({
      validate: null,
      error: '$schema must be a string',
    });
  });

  it('compiles each draft with one compiler, one after the other', () => {
    const compiler = new SchemaCompiler();
    const v2020 = compiler.compile(tuple(DRAFT_2020)).validate;
    const v07 = compiler.compile(tuple()).validate;
    const v2019 = compiler.compile(tuple(DRAFT_2019)).validate;
    const again2020 = compiler.compile(tuple(DRAFT_2020)).validate;
    expect(checkArguments('{"p":["x"]}', v2020).kind).toBe('invalid');
    expect(checkArguments('{"p":["x"],"a":1}', v07).kind).toBe('ok');
    expect(checkArguments('{"p":["x"]}', v2019).kind).toBe('ok');
    expect(checkArguments('{"a":1}', v2019).kind).toBe('invalid');
    expect(checkArguments('{"p":["x"]}', again2020).kind).toBe('invalid');
  });

  it('checks no format and ignores unknown keywords', () => {
    const v = validator({
      type: 'object',
      properties: { mail: { type: 'string', format: 'email' }, when: { type: 'string', format: 'my-own-format' } },
      'x-vendor': { anything: true },
    });
    expect(checkArguments('{"mail":"not a mail","when":"whenever"}', v)).toEqual({
      kind: 'ok',
      args: { mail: 'not a mail', when: 'whenever' },
    });
  });

  it('says why a schema cannot be compiled, and gives no validator', () => {
    expect(new SchemaCompiler().compile({ type: 'nonsense' })).toEqual({
      validate: null,
      error:
        'schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf',
    });
    expect(
      new SchemaCompiler().compile({
        $schema: DRAFT_2020,
        type: 'object',
        properties: { p: { items: [{ type: 'number' }] } },
      }),
    ).toEqual({ validate: null, error: 'schema is invalid: data/properties/p/items must be object,boolean' });
  });
  it('compiles a schema with an $id again, as a server that lists its tools again sends it', () => {
    const compiler = new SchemaCompiler();
    const schema = (): Record<string, unknown> => ({
      $id: 'https://example.com/tools/add.json',
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
    });
    const first = compiler.compile(schema());
    const again = compiler.compile(schema());
    expect(first.error).toBeNull();
    expect(again.error).toBeNull();
    expect(checkArguments('{"a":"one"}', again.validate)).toEqual({ kind: 'invalid', problem: '/a must be number' });
  });

  it('compiles two schemas that share an $id, each checking its own shape', () => {
    const compiler = new SchemaCompiler();
    const id = 'https://example.com/tools/args.json';
    const a = compiler.compile({ $id: id, type: 'object', required: ['a'] });
    const b = compiler.compile({ $id: id, type: 'object', required: ['b'] });
    expect([a.error, b.error]).toEqual([null, null]);
    expect(checkArguments('{"b":1}', a.validate)).toEqual({ kind: 'invalid', problem: '/a is required' });
    expect(checkArguments('{"a":1}', b.validate)).toEqual({ kind: 'invalid', problem: '/b is required' });
  });

  it('resolves a reference inside a schema with an $id', () => {
    const compiler = new SchemaCompiler();
    const schema = (): Record<string, unknown> => ({
      $id: 'https://example.com/tools/ref.json',
      type: 'object',
      definitions: { n: { type: 'number' } },
      properties: { a: { $ref: '#/definitions/n' } },
    });
    compiler.compile(schema());
    const { validate, error } = compiler.compile(schema());
    expect(error).toBeNull();
    expect(checkArguments('{"a":"x"}', validate)).toEqual({ kind: 'invalid', problem: '/a must be number' });
    expect(checkArguments('{"a":1}', validate)).toEqual({ kind: 'ok', args: { a: 1 } });
  });
});
