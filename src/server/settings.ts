/**
 * From the command line, the environment and the config file to the settings `serve` runs with
 * (docs/spec.md §13.1). Flags override the file; the token comes from `--token`, else HOMEAGENT_TOKEN, else
 * `http.token`. Every problem is collected, with the flag or the file path it is about, so one start
 * lists all that is wrong (exit 2). Binding to a non-loopback host without a token is one of them.
 */
import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ProviderConfig } from '../models/index.ts';
import {
  MCP_NAME_SEPARATOR,
  MCP_SERVER_NAME,
  MCP_SERVER_NAME_CHARS_MAX,
  MCP_TIMEOUT_MS_DEFAULT,
  type McpServerConfig,
} from '../tools/mcp/mcp-config.ts';
import {
  BODY_TIMEOUT_MS_DEFAULT,
  MAX_WATCHERS_DEFAULT,
  serveConfigSchema,
  type McpServerEntry,
  type ServeConfig,
  type TimerConfig,
  type ToolConfig,
} from './config-schema.ts';
import { journalPolicy, type JournalPolicy } from './journal-policy.ts';
import { otlpTarget, type OtlpTarget } from '../telemetry/index.ts';
import { defaultLogFormat, type LogFormat } from './logger.ts';
import { outputTargetProblems } from './output-targets.ts';
import { check, type FieldProblem } from './zod-problems.ts';
import { DEFAULT_HOST, DEFAULT_PORT, DEMO_CHUNK_MS_DEFAULT, TOKEN_ENV } from './serve-defaults.ts';

export { DEFAULT_HOST, DEFAULT_PORT, DEMO_CHUNK_MS_DEFAULT, TOKEN_ENV };
const DEMO_CHUNK_MS_MAX = 10_000;

/** The flags as commander hands them over (values unvalidated). `terminal` is false for --no-terminal. */
export interface ServeFlags {
  readonly config?: string;
  readonly model?: string;
  readonly demoChunkMs?: string;
  readonly host?: string;
  readonly port?: string;
  readonly token?: string;
  readonly dataDir?: string;
  /** A file for `--journal FILE`; false for `--no-journal`. */
  readonly journal?: string | false;
  readonly trace?: string;
  readonly logFormat?: string;
  readonly terminal?: boolean;
}

/** `chunkMs`: the demo model's pause before each chunk; absent, none. */
export type ModelChoice =
  | { readonly kind: 'demo'; readonly chunkMs?: number }
  | { readonly kind: 'providers'; readonly providers: readonly ProviderConfig[] };

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
  /**
   * Durability (docs/spec.md §13.2): the journal in `<dataDir>/journal/` is the write-ahead log and a
   * start recovers from it. False with `--no-journal`.
   */
  readonly durable: boolean;
  /** The write-ahead log's sync mode, snapshot interval and kept segments (config `journal`). */
  readonly journalPolicy: JournalPolicy;
  /** `--journal FILE`: a single-file copy of the journal, for export. */
  readonly journal: string | null;
  readonly trace: string | null;
  readonly logFormat: LogFormat;
  readonly terminal: boolean;
  readonly tools: readonly ToolConfig[];
  /** The MCP servers, in the config file's order (docs/spec.md §13.3). */
  readonly mcpServers: readonly McpServerConfig[];
  readonly timers: readonly TimerConfig[];
  readonly builtinPlugins: readonly string[];
  readonly kernel: NonNullable<ServeConfig['kernel']>;
  readonly channels: NonNullable<ServeConfig['channels']>;
  readonly outputs: NonNullable<ServeConfig['outputs']>;
  readonly residents: NonNullable<ServeConfig['residents']>;
  /** Where spans are exported (docs/spec.md §13.4); absent: nowhere. */
  readonly telemetry?: OtlpTarget;
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
  // Null when the file cannot be used: its problems are listed, and nothing else is read from it.
  const loaded = flags.config === undefined ? {} : loadConfig(flags.config, problems);
  const config = loaded ?? {};
  const port = flags.port === undefined ? (config.http?.port ?? DEFAULT_PORT) : parsePort(flags.port, problems);
  const host = flags.host ?? config.http?.host ?? DEFAULT_HOST;
  if (host === '') problems.push({ path: '--host', message: 'must name a host, like 127.0.0.1' });
  const envToken = env[TOKEN_ENV] === undefined || env[TOKEN_ENV] === '' ? undefined : env[TOKEN_ENV];
  const token = flags.token ?? envToken ?? config.http?.token ?? null;
  if (token === '') problems.push({ path: '--token', message: 'must not be empty; leave it out for no token' });
  else if (token !== null && !PRINTABLE_TOKEN.test(token)) {
    problems.push({
      path: flags.token !== undefined ? '--token' : envToken !== undefined ? TOKEN_ENV : 'http.token',
      message:
        'must be printable ASCII (letters, digits, punctuation; spaces only inside): an HTTP header carries ' +
        'nothing else, so no client could send this token',
    });
  }
  if ((token === null || token === '') && host !== '' && !isLoopbackHost(host)) {
    problems.push({
      path: flags.host === undefined ? 'http.host' : '--host',
      message:
        `${host} is not a loopback address, and without a token anyone who reaches it can talk to the agent; ` +
        `set --token or ${TOKEN_ENV}, or bind to 127.0.0.1`,
    });
  }
  const model = loaded === null ? null : modelChoice(flags, config, flags.config !== undefined, problems);
  const logFormat = flags.logFormat ?? defaultLogFormat(stderrIsTerminal);
  if (logFormat !== 'json' && logFormat !== 'text')
    problems.push({ path: '--log-format', message: `must be json or text, got ${JSON.stringify(logFormat)}` });
  const dataDir = flags.dataDir ?? config.dataDir ?? join(homedir(), '.homeagent');
  problems.push(
    ...outputTargetProblems({
      dataDir,
      config: flags.config ?? null,
      journal: typeof flags.journal === 'string' ? flags.journal : null,
      trace: flags.trace ?? null,
    }),
  );
  const tools = config.tools ?? [];
  tools.forEach((t, i) => {
    if (tools.findIndex((u) => u.name === t.name) !== i)
      problems.push({ path: `tools[${i}].name`, message: `duplicate tool name "${t.name}"; give each tool its own` });
  });
  const mcpServers = mcpServerConfigs(config.mcpServers ?? {}, tools, problems);
  const telemetry = otlpTarget(config.telemetry?.otlp, env, problems);
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
      dataDir,
      durable: flags.journal !== false,
      journalPolicy: journalPolicy(config.journal),
      journal: typeof flags.journal === 'string' ? flags.journal : null,
      trace: flags.trace ?? null,
      logFormat: logFormat as LogFormat,
      terminal: flags.terminal !== false,
      tools,
      mcpServers,
      timers: config.timers ?? [],
      builtinPlugins: config.builtinPlugins ?? [],
      kernel: config.kernel ?? {},
      channels: config.channels ?? [],
      outputs: config.outputs ?? [],
      residents: config.residents ?? [],
      ...(telemetry === null ? {} : { telemetry }),
    },
  };
}

/**
 * An MCP server's name: the model calls its tools `<name>__<tool>`, so it holds no `__` and leaves room in
 * the 64 characters a tool name may have.
 */

/** The `mcpServers` entries as the tool runner takes them; a bad name or a clash is a problem. */
function mcpServerConfigs(
  entries: Readonly<Record<string, McpServerEntry>>,
  tools: readonly ToolConfig[],
  problems: FieldProblem[],
): McpServerConfig[] {
  const servers: McpServerConfig[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    if (!MCP_SERVER_NAME.test(name) || name.length > MCP_SERVER_NAME_CHARS_MAX) {
      problems.push({
        path: `mcpServers.${name}`,
        message: `the name must be 1 to ${MCP_SERVER_NAME_CHARS_MAX} letters and digits, with single "_" or "-" between them: the model calls its tools <name>${MCP_NAME_SEPARATOR}<tool>`,
      });
      continue;
    }
    tools.forEach((t, i) => {
      if (t.name.startsWith(`${name}${MCP_NAME_SEPARATOR}`))
        problems.push({
          path: `tools[${i}].name`,
          message: `"${t.name}" is named like the tools of the MCP server "${name}"; rename the tool or the server`,
        });
    });
    servers.push({
      name,
      transport:
        entry.url !== undefined
          ? { kind: 'http', url: entry.url, headers: entry.headers ?? {} }
          : {
              kind: 'stdio',
              command: entry.command ?? '',
              args: entry.args ?? [],
              env: entry.env ?? {},
              cwd: entry.cwd ?? null,
            },
      tools: entry.tools ?? null,
      parallelSafe: entry.parallelSafe ?? false,
      timeoutMs: entry.timeoutMs ?? MCP_TIMEOUT_MS_DEFAULT,
    });
  }
  return servers;
}

/** What a bearer token may hold: printable ASCII, without the spaces a header value loses at its ends. */
const PRINTABLE_TOKEN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Addresses no other machine can reach, in every form the address resolver takes (so in every form
 * `listen` binds): `localhost`, 127.0.0.0/8 also written short, octal or hex (`127.1`, `0x7f.1`,
 * `2130706433`, as inet_aton reads them), and `::1` or an IPv4-mapped 127 address in any IPv6 spelling,
 * with or without brackets.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
  if (bare === 'localhost' || bare === 'localhost.') return true;
  if (isIPv6(bare)) {
    const canonical = new URL(`http://[${bare}]`).hostname;
    return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
  }
  const v4 = ipv4Number(bare);
  return v4 !== null && v4 >>> 24 === 127;
}

/** The address of an IPv4 literal in inet_aton's forms (1 to 4 parts, decimal, octal or hex), or null. */
function ipv4Number(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 4) return null;
  const values = parts.map((part) => {
    if (/^0x[0-9a-f]+$/.test(part)) return parseInt(part.slice(2), 16);
    if (/^0[0-7]*$/.test(part)) return parseInt(part, 8);
    // Stryker disable next-line Regex: Number() reads a whole decimal or gives NaN, as the fall-through does
    if (/^[1-9][0-9]*$/.test(part)) return Number(part);
    return NaN;
  });
  // The last part fills the bits the others leave: a.b.c.d, a.b.c16, a.b24, a32.
  const lastBits = 8 * (5 - values.length);
  let address = 0;
  for (const [i, value] of values.entries()) {
    const last = i === values.length - 1;
    if (!Number.isFinite(value) || value >= 2 ** (last ? lastBits : 8)) return null;
    address = last ? address * 2 ** lastBits + value : address * 256 + value;
  }
  return address;
}

function loadConfig(path: string, problems: FieldProblem[]): ServeConfig | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push({
      path: '--config',
      message: `cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`,
    });
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    problems.push({ path: '', message: `${path} is not JSON: ${err instanceof Error ? err.message : String(err)}` });
    return null;
  }
  const checked = check(serveConfigSchema, value);
  if (checked.ok) return checked.value;
  problems.push(...checked.problems);
  // Also say that providers are missing when they are, but never when they are there and the problem is elsewhere.
  const hasProviders = typeof value === 'object' && value !== null && 'providers' in value;
  return hasProviders ? null : {};
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

function demoChunkMs(text: string | undefined, problems: FieldProblem[]): number {
  if (text === undefined) return DEMO_CHUNK_MS_DEFAULT;
  const ms = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (ms <= DEMO_CHUNK_MS_MAX) return ms;
  problems.push({
    path: '--demo-chunk-ms',
    message: `must be a whole number of milliseconds 0 … ${DEMO_CHUNK_MS_MAX} (0 streams without pausing), got ${JSON.stringify(text)}`,
  });
  return DEMO_CHUNK_MS_DEFAULT;
}

function modelChoice(
  flags: ServeFlags,
  config: ServeConfig,
  hasFile: boolean,
  problems: FieldProblem[],
): ModelChoice | null {
  const flag = flags.model;
  if (flags.demoChunkMs !== undefined && flag !== 'demo')
    problems.push({ path: '--demo-chunk-ms', message: 'sets the pace of the demo model; use it with --model demo' });
  if (flag !== undefined) {
    if (flag === 'demo') return { kind: 'demo', chunkMs: demoChunkMs(flags.demoChunkMs, problems) };
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
