/**
 * From the command line, the environment and the config file to the settings `serve` runs with
 * (docs/spec.md §13.1). Flags override the file; the token comes from `--token`, else HOMEAGENT_TOKEN, else
 * `http.token`. Every problem is collected, with the flag or the file path it is about, so one start
 * lists all that is wrong (exit 2). Binding to a non-loopback host without a token is one of them.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ProviderConfig } from '../models/index.ts';
import {
  BODY_TIMEOUT_MS_DEFAULT,
  MAX_WATCHERS_DEFAULT,
  serveConfigSchema,
  type ServeConfig,
  type TimerConfig,
  type ToolConfig,
} from './config-schema.ts';
import { defaultLogFormat, type LogFormat } from './logger.ts';
import { check, type FieldProblem } from './zod-problems.ts';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const TOKEN_ENV = 'HOMEAGENT_TOKEN';

/** The flags as commander hands them over (values unvalidated). `terminal` is false for --no-terminal. */
export interface ServeFlags {
  readonly config?: string;
  readonly model?: string;
  readonly host?: string;
  readonly port?: string;
  readonly token?: string;
  readonly dataDir?: string;
  readonly journal?: string;
  readonly trace?: string;
  readonly logFormat?: string;
  readonly terminal?: boolean;
}

export type ModelChoice =
  { readonly kind: 'demo' } | { readonly kind: 'providers'; readonly providers: readonly ProviderConfig[] };

export interface ServeSettings {
  readonly model: ModelChoice;
  readonly host: string;
  readonly port: number;
  /** Null: no token, which only a loopback host allows. */
  readonly token: string | null;
  readonly bodyTimeoutMs: number;
  /** The most `GET /v1/events` streams open at once (`http.maxWatchers`). */
  readonly maxWatchers: number;
  /** Names besides the loopback ones a loopback server answers (`http.allowedHosts`). */
  readonly allowedHosts: readonly string[];
  readonly dataDir: string;
  readonly journal: string | null;
  readonly trace: string | null;
  readonly logFormat: LogFormat;
  readonly terminal: boolean;
  readonly tools: readonly ToolConfig[];
  readonly timers: readonly TimerConfig[];
  readonly builtinPlugins: readonly string[];
  readonly kernel: NonNullable<ServeConfig['kernel']>;
  readonly channels: NonNullable<ServeConfig['channels']>;
  readonly outputs: NonNullable<ServeConfig['outputs']>;
  readonly residents: NonNullable<ServeConfig['residents']>;
}

export type Resolved =
  { readonly ok: true; readonly settings: ServeSettings } | { readonly ok: false; readonly problems: FieldProblem[] };

/**
 * `stderrIsTerminal` says where the log goes; it chooses the log format when `--log-format` does not
 * (logger.ts). Not a terminal unless told, so the log stays machine-readable.
 */
export function resolveSettings(
  flags: ServeFlags,
  env: Readonly<Record<string, string | undefined>>,
  stderrIsTerminal = false,
): Resolved {
  const problems: FieldProblem[] = [];
  const config = flags.config === undefined ? {} : loadConfig(flags.config, problems);
  const port = flags.port === undefined ? (config.http?.port ?? DEFAULT_PORT) : parsePort(flags.port, problems);
  const host = flags.host ?? config.http?.host ?? DEFAULT_HOST;
  if (host === '') problems.push({ path: '--host', message: 'must name a host, like 127.0.0.1' });
  const envToken = env[TOKEN_ENV] === undefined || env[TOKEN_ENV] === '' ? undefined : env[TOKEN_ENV];
  const token = flags.token ?? envToken ?? config.http?.token ?? null;
  if (token === '') problems.push({ path: '--token', message: 'must not be empty; leave it out for no token' });
  if ((token === null || token === '') && host !== '' && !isLoopbackHost(host)) {
    problems.push({
      path: flags.host === undefined ? 'http.host' : '--host',
      message:
        `${host} is not a loopback address, and without a token anyone who reaches it can talk to the agent; ` +
        `set --token or ${TOKEN_ENV}, or bind to 127.0.0.1`,
    });
  }
  const model = modelChoice(flags.model, config, flags.config !== undefined, problems);
  const logFormat = flags.logFormat ?? defaultLogFormat(stderrIsTerminal);
  if (logFormat !== 'json' && logFormat !== 'text')
    problems.push({ path: '--log-format', message: `must be json or text, got ${JSON.stringify(logFormat)}` });
  if (flags.journal !== undefined && flags.trace !== undefined && resolve(flags.journal) === resolve(flags.trace)) {
    problems.push({
      path: '--trace',
      message: `${flags.trace} is also the --journal file; give the trace a file of its own`,
    });
  }
  const tools = config.tools ?? [];
  tools.forEach((t, i) => {
    if (tools.findIndex((u) => u.name === t.name) !== i)
      problems.push({ path: `tools[${i}].name`, message: `duplicate tool name "${t.name}"; give each tool its own` });
  });
  if (problems.length > 0 || model === null) return { ok: false, problems };
  return {
    ok: true,
    settings: {
      model,
      host,
      port,
      token,
      bodyTimeoutMs: config.http?.bodyTimeoutMs ?? BODY_TIMEOUT_MS_DEFAULT,
      maxWatchers: config.http?.maxWatchers ?? MAX_WATCHERS_DEFAULT,
      allowedHosts: config.http?.allowedHosts ?? [],
      dataDir: flags.dataDir ?? config.dataDir ?? join(homedir(), '.homeagent'),
      journal: flags.journal ?? null,
      trace: flags.trace ?? null,
      logFormat: logFormat as LogFormat,
      terminal: flags.terminal !== false,
      tools,
      timers: config.timers ?? [],
      builtinPlugins: config.builtinPlugins ?? [],
      kernel: config.kernel ?? {},
      channels: config.channels ?? [],
      outputs: config.outputs ?? [],
      residents: config.residents ?? [],
    },
  };
}

/** 127.0.0.0/8, ::1 and localhost: addresses no other machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) ||
    /^::ffff:127\./i.test(bare)
  );
}

function loadConfig(path: string, problems: FieldProblem[]): ServeConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push({
      path: '--config',
      message: `cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`,
    });
    return {};
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    problems.push({ path: '', message: `${path} is not JSON: ${err instanceof Error ? err.message : String(err)}` });
    return {};
  }
  const checked = check(serveConfigSchema, value);
  if (checked.ok) return checked.value;
  problems.push(...checked.problems);
  return {};
}

function parsePort(text: string, problems: FieldProblem[]): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (Number.isInteger(port) && port <= 65_535) return port;
  problems.push({
    path: '--port',
    message: `must be a port number 0 … 65535 (0 picks a free one), got ${JSON.stringify(text)}`,
  });
  return DEFAULT_PORT;
}

function modelChoice(
  flag: string | undefined,
  config: ServeConfig,
  hasFile: boolean,
  problems: FieldProblem[],
): ModelChoice | null {
  if (flag !== undefined) {
    if (flag === 'demo') return { kind: 'demo' };
    problems.push({
      path: '--model',
      message: `only "demo" is a model name here, got ${JSON.stringify(flag)}; configure real models under "providers" in --config`,
    });
    return null;
  }
  if (config.providers !== undefined) return { kind: 'providers', providers: config.providers };
  problems.push({
    path: hasFile ? 'providers' : '--config',
    message: hasFile
      ? 'required: list at least one provider (kind "openai" or "anthropic"), or run with --model demo'
      : 'no model to talk to: give --config FILE with "providers", or run with --model demo',
  });
  return null;
}
