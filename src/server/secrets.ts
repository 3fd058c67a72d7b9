/**
 * The secrets of a server and their redaction (docs/spec.md §13.1a, "Secrets never leave"). A secret
 * is the value of a configured API key, the token, and the credentials inside a provider's `baseURL`
 * (its userinfo, and query parameters named like key/token/secret), and the values of each MCP server's
 * `env` and `headers` with the credentials of its `url` (§13.3), and the values of `telemetry.otlp.headers`
 * (or OTEL_EXPORTER_OTLP_HEADERS) with the credentials of the collector's endpoint (§13.4). Each is
 * replaced by `[redacted]` in everything serve writes or sends.
 *
 * Theory of operation. Text reaches the outside from two places: the kernel (replies, the
 * conversation, status, the trace, and so the journal, SSE and the log lines of trace events), and
 * serve's own lines (start, errors). The kernel is screened at its one door: every input that carries
 * text from outside — a submission, a model chunk or failure, a tool result, an MCP tool list — is redacted before the
 * kernel or the journal sees it, so an upstream error that quotes the key it was sent never enters
 * the conversation, and a replay of the journal reproduces the redacted run exactly. Serve's own
 * lines are redacted as they are logged. The journal header records the configuration field by field
 * (public-config.ts), with each `baseURL` stripped of its credentials.
 *
 * A secret shorter than SECRET_CHARS_MIN is not searched for in text (it would match ordinary words);
 * serve warns about it at start. Text is searched for each secret as it is and percent-encoded. A
 * secret split across two streamed chunks is not recognized.
 */
import type { KernelInput, ModelChunk } from '../kernel/index.ts';
import type { McpServerConfig } from '../tools/mcp/mcp-config.ts';
import type { ServeSettings } from './settings.ts';

export const REDACTED = '[redacted]';
/** Shorter secrets are not searched for in text. */
export const SECRET_CHARS_MIN = 8;
/** Query parameters of a `baseURL` whose values are secrets. */
const SECRET_PARAM = /key|token|secret/i;

export interface Secret {
  /** Where it is configured, for the start-up warning (never the value). */
  readonly where: string;
  readonly value: string;
}

/** Every secret of the settings; API keys are read from `env` as the provider factory reads them. */
export function secretsOf(settings: ServeSettings, env: Readonly<Record<string, string | undefined>>): Secret[] {
  const secrets: Secret[] = [];
  if (settings.token !== null) secrets.push({ where: 'the token', value: settings.token });
  secrets.push(...settings.mcpServers.flatMap(mcpSecrets));
  if (settings.telemetry !== undefined) {
    const { headers, endpoint } = settings.telemetry;
    secrets.push(...Object.entries(headers).map(([name, value]) => ({ where: `telemetry header ${name}`, value })));
    secrets.push(...urlSecrets(endpoint, 'telemetry.otlp.endpoint'));
  }
  if (settings.model.kind !== 'providers') return secrets;
  for (const p of settings.model.providers) {
    const key = p.apiKeyEnv === undefined ? undefined : env[p.apiKeyEnv]?.trim();
    if (key !== undefined && key !== '') secrets.push({ where: `the key in ${p.apiKeyEnv}`, value: key });
    if (p.baseURL !== undefined) secrets.push(...urlSecrets(p.baseURL, `providers "${p.name}" baseURL`));
  }
  return secrets;
}

/** An MCP server's secrets: every value of its `env` or its `headers`, and its URL's credentials. */
function mcpSecrets(server: McpServerConfig): Secret[] {
  const where = `mcpServers "${server.name}"`;
  const t = server.transport;
  switch (t.kind) {
    case 'stdio':
      return Object.entries(t.env).map(([name, value]) => ({ where: `${where} env ${name}`, value }));
    case 'http':
      return [
        ...Object.entries(t.headers).map(([name, value]) => ({ where: `${where} header ${name}`, value })),
        ...urlSecrets(t.url, `${where} url`),
      ];
  }
}

function urlSecrets(raw: string, where: string): Secret[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const out: Secret[] = [];
  for (const part of [url.username, url.password]) {
    if (part === '') continue;
    out.push({ where: `${where} userinfo`, value: decode(part) });
    if (decode(part) !== part) out.push({ where: `${where} userinfo`, value: part });
  }
  for (const [name, value] of url.searchParams) {
    if (SECRET_PARAM.test(name) && value !== '') out.push({ where: `${where} ${name}`, value });
  }
  return out;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** A `baseURL` with its userinfo and secret query values replaced by `[redacted]`, for the journal header. */
export function publicURL(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return REDACTED;
  }
  const userinfo = url.username === '' && url.password === '' ? '' : `${REDACTED}@`;
  const query = [...url.searchParams]
    .map(
      ([name, value]) =>
        `${encodeURIComponent(name)}=${SECRET_PARAM.test(name) ? REDACTED : encodeURIComponent(value)}`,
    )
    .join('&');
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query === '' ? '' : `?${query}`}${url.hash}`;
}

export class Redactor {
  /** The strings searched for, longest first, so a secret inside a longer one never leaves a piece. */
  private readonly needles: readonly string[];

  constructor(secrets: readonly Secret[]) {
    const needles = new Set<string>();
    for (const { value } of secrets) {
      if (value.length < SECRET_CHARS_MIN) continue;
      needles.add(value);
      needles.add(encodeURIComponent(value));
    }
    // Longest first, so a secret inside a longer one is not cut out of it; then code-point order (they are unique).
    // Stryker disable next-line EqualityOperator: two needles are never equal
    this.needles = [...needles].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  }

  /** False when no secret is long enough to search for: redaction is then the identity. */
  get active(): boolean {
    return this.needles.length > 0;
  }

  redact(text: string): string {
    let out = text;
    // Every log line and every streamed chunk passes here, nearly all without a secret: includes() is
    // about ten times cheaper than a split that finds nothing.
    // Stryker disable next-line ConditionalExpression: a split without a match gives the text back unchanged
    for (const needle of this.needles) if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    return out;
  }

  /** A JSON value with every string in it (keys too) redacted; the same value when nothing changed. */
  private value(v: unknown): unknown {
    if (typeof v === 'string') return this.redact(v);
    if (Array.isArray(v)) {
      const items = v.map((x) => this.value(x));
      return items.every((x, i) => x === v[i]) ? v : items;
    }
    if (typeof v !== 'object' || v === null) return v;
    const original = Object.entries(v);
    const entries = original.map(([k, x]) => [this.redact(k), this.value(x)] as const);
    const same = entries.every(([k, x], i) => k === original[i]?.[0] && x === original[i]?.[1]);
    return same ? v : Object.fromEntries(entries);
  }

  /** The input with every text from outside redacted; the same object when nothing changed. */
  input(input: KernelInput): KernelInput {
    switch (input.type) {
      case 'submit':
      case 'submit.after': {
        const text = this.redact(input.submission.text);
        return text === input.submission.text ? input : { ...input, submission: { ...input.submission, text } };
      }
      case 'model.chunk': {
        const chunk = this.chunk(input.chunk);
        return chunk === input.chunk ? input : { ...input, chunk };
      }
      case 'model.failed':
      case 'tool.failed': {
        const error = this.redact(input.error);
        return error === input.error ? input : { ...input, error };
      }
      case 'tool.done': {
        const output = this.redact(input.result.output);
        return output === input.result.output ? input : { ...input, result: { ...input.result, output } };
      }
      case 'tools.set': {
        // An MCP server's tool list is text from outside too: descriptions and schemas reach the model.
        const tools = input.tools.map((t) => {
          const description = this.redact(t.description);
          const parameters = this.value(t.parameters) as Record<string, unknown>;
          return description === t.description && parameters === t.parameters ? t : { ...t, description, parameters };
        });
        return tools.every((t, i) => t === input.tools[i]) ? input : { ...input, tools };
      }
      default:
        return input;
    }
  }

  private chunk(chunk: ModelChunk): ModelChunk {
    if (chunk.type === 'text') {
      const text = this.redact(chunk.text);
      return text === chunk.text ? chunk : { ...chunk, text };
    }
    if (chunk.type === 'tool_call' && chunk.argsDelta !== undefined) {
      const argsDelta = this.redact(chunk.argsDelta);
      return argsDelta === chunk.argsDelta ? chunk : { ...chunk, argsDelta };
    }
    return chunk;
  }
}

/** The start-up warnings: one per secret too short to be searched for in text. */
export function shortSecretWarnings(secrets: readonly Secret[]): string[] {
  const short = new Set(secrets.filter((s) => s.value.length < SECRET_CHARS_MIN).map((s) => s.where));
  return [...short].map(
    (where) =>
      `${where} is shorter than ${SECRET_CHARS_MIN} characters: it is never written by itself, but text that quotes it is not redacted; use a longer one`,
  );
}
