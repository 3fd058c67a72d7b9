/**
 * A call's arguments checked against the tool's JSON Schema before anything is sent (docs/spec.md
 * §13.3). A mismatch is the tool error `invalid arguments for <server>__<tool>: <JSON Pointer> <problem>`,
 * e.g. `/a must be number`, so the model learns which field to fix and the server never sees the call.
 *
 * Servers write their schemas in draft-07 (the SDK's default), 2019-09 or 2020-12; the validator follows
 * the schema's `$schema`. Formats are not checked (servers use ones ajv does not know) and unknown
 * keywords are ignored: the check is about types and shape, like the kernel's own argument schemas (§3.8).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

export type ArgumentsCheck =
  | { readonly kind: 'ok'; readonly args: Record<string, unknown> }
  | { readonly kind: 'invalid'; readonly problem: string };

/** One compiled check per tool schema; `null` when the schema cannot be compiled (calls go unchecked). */
export type ArgumentsValidator = ValidateFunction | null;

// addUsedSchema: false keeps a compiled schema's `$id` out of the compiler's registry: a server lists its
// schemas again (tools/list_changed, a reconnect), and two tools may share an `$id`; a registered `$id`
// would make every later schema with it fail to compile ("already exists") and go unchecked.
const OPTIONS = {
  strict: false,
  allErrors: false,
  validateFormats: false,
  logger: false,
  addUsedSchema: false,
} as const;

/** A validator per draft, made on first use: most servers only ever need one. */
export class SchemaCompiler {
  private readonly drafts = new Map<'07' | '2019' | '2020', Ajv | Ajv2019 | Ajv2020>();

  /** The validator of `schema`, or the reason it cannot be compiled. */
  compile(schema: Readonly<Record<string, unknown>>): { validate: ArgumentsValidator; error: string | null } {
    try {
      return { validate: this.ajvFor(schema).compile(schema), error: null };
    } catch (err) {
      return { validate: null, error: err instanceof Error ? err.message : String(err) };
    }
  }

  private ajvFor(schema: Readonly<Record<string, unknown>>): Ajv | Ajv2019 | Ajv2020 {
    const uri = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
    const draft = uri.includes('2020-12') ? '2020' : uri.includes('2019-09') ? '2019' : '07';
    let ajv = this.drafts.get(draft);
    if (ajv === undefined) {
      ajv = draft === '2020' ? new Ajv2020(OPTIONS) : draft === '2019' ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
      this.drafts.set(draft, ajv);
    }
    return ajv;
  }
}

/**
 * The arguments as the model wrote them (a JSON text), parsed and checked. An empty text is `{}`: models
 * send it for tools without parameters.
 */
export function checkArguments(text: string, validate: ArgumentsValidator): ArgumentsCheck {
  let args: unknown;
  try {
    args = text.trim() === '' ? {} : JSON.parse(text);
  } catch (err) {
    return { kind: 'invalid', problem: `not JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  // MCP sends arguments as an object whatever the schema says (CallToolRequest.params.arguments).
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { kind: 'invalid', problem: 'must be object' };
  const record = args as Record<string, unknown>;
  if (validate === null || validate(record)) return { kind: 'ok', args: record };
  const first = validate.errors?.[0];
  return { kind: 'invalid', problem: first === undefined ? 'do not match the schema' : describe(first) };
}

/** `<JSON Pointer> <problem>`: the field the error is about, named even when ajv reports it on the parent. */
function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params['missingProperty'] === 'string')
    return `${error.instancePath}/${escapePointer(params['missingProperty'])} is required`;
  if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string')
    return `${error.instancePath}/${escapePointer(params['additionalProperty'])} is not allowed`;
  const problem = error.message ?? `fails ${error.keyword}`;
  return error.instancePath === '' ? problem : `${error.instancePath} ${problem}`;
}

/** RFC 6901: `~` and `/` inside a key are written `~0` and `~1`. */
function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
