/**
 * The `serve` configuration file (docs/spec.md §13.1), as a strict zod schema: unknown keys are errors, every
 * problem is reported with its path. Only `providers` is needed (or `--model demo`); every other key
 * has the command line's default. Secrets are never in the file: a provider names the environment
 * variable of its key (`apiKeyEnv`); the HTTP token may be given here, but HOMEAGENT_TOKEN or --token
 * are the places for it, and it is never written to the journal.
 *
 * `channels`, `outputs` and `residents` take the shape of the scenario file's (§12.2): residents are
 * created at start, after the channels, through the kernel's door (so the journal records them).
 * `timers` configures the timer plugin. `mcpServers` has the shape other MCP hosts use (§13.3): a server
 * is a program to start over stdio (`command`, `args`, `env`, `cwd`) or a Streamable HTTP URL (`url`,
 * `headers`); the values of `env` and `headers` are secrets (secrets.ts).
 */
import { z } from 'zod';
import { SYNC_MODES } from '../journal/index.ts';
import { providersSchema } from '../models/index.ts';
import { strictObject } from './zod-problems.ts';

/** A tool runs at most this long, whatever its configuration says. */
export const TOOL_TIMEOUT_MS_MAX = 600_000;
/** A request body must arrive within this long (configurable as `http.bodyTimeoutMs`). */
export const BODY_TIMEOUT_MS_DEFAULT = 10_000;
export const TIMERS_MAX = 64;
/** `GET /v1/events` streams open at once: `http.maxWatchers`, at most WATCHERS_MAX. */
export const MAX_WATCHERS_DEFAULT = 16;
const WATCHERS_MAX = 1024;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** A DNS name or an address as a Host header names it (an IPv6 address in brackets). */
const HOST_NAME = /^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])$/;
/** Names the kernel's built-in tools use: a configured tool by one of them would shadow or be shadowed. */
const BUILTIN_TOOL =
  /^(memory_recall|memory_write|input_channels|output_list_channels|resident_agents|notify_parent|inputch_note|output_send__.*)$/;

const nonEmpty = z.string().min(1);
const positiveInt = z.int().min(1);
const ms = z
  .int()
  .min(0)
  .max(2 ** 31 - 1);

const tool = strictObject({
  name: z
    .string()
    .regex(TOOL_NAME, { error: 'must be 1 to 64 letters, digits, "_" or "-"' })
    .refine((name) => !BUILTIN_TOOL.test(name), { error: 'is the name of a built-in tool; choose another name' }),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  command: z.array(nonEmpty).min(1, { error: 'must name the program to run, then its arguments (no shell is used)' }),
  timeoutMs: z.int().min(1).max(TOOL_TIMEOUT_MS_MAX).optional(),
  parallelSafe: z.boolean().optional(),
  /** What a restart does with a call of this tool that was in flight at a crash (docs/spec.md §13.2). */
  onRestart: z.enum(['fail', 'rerun']).optional(),
});

/**
 * One MCP server: exactly one of `command` and `url`, and only the keys of its kind. One object with
 * every key, checked after, says which key is wrong; a union of two strict objects could only say that
 * neither matched.
 */
const mcpServer = strictObject({
  command: nonEmpty.optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: nonEmpty.optional(),
  url: z
    .string()
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), {
      error: 'must be an http:// or https:// URL (a Streamable HTTP MCP endpoint)',
    })
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
  tools: z.array(nonEmpty).optional(),
  parallelSafe: z.boolean().optional(),
  timeoutMs: z.int().min(1).max(TOOL_TIMEOUT_MS_MAX).optional(),
}).superRefine((server, ctx) => {
  if ((server.command === undefined) === (server.url === undefined))
    ctx.addIssue({
      code: 'custom',
      message: 'needs either "command" (a program serve starts over stdio) or "url" (a Streamable HTTP server)',
    });
  const misplaced =
    server.url !== undefined
      ? (['args', 'env', 'cwd'] as const).filter((k) => server[k] !== undefined)
      : server.headers !== undefined
        ? (['headers'] as const)
        : [];
  for (const key of misplaced)
    ctx.addIssue({
      code: 'custom',
      path: [key],
      message:
        key === 'headers'
          ? 'belongs to a server reached by "url"; a stdio server takes "env"'
          : 'belongs to a server started by "command"; a server reached by "url" takes "headers"',
    });
});

const kernel = strictObject({
  maxQueue: positiveInt.optional(),
  cooldownMs: ms.optional(),
  dedupWindowMs: ms.optional(),
  maxToolTurns: z.int().min(0).optional(),
  contextWindowTokens: positiveInt.optional(),
  consolidateEveryTurns: z.int().min(0).optional(),
  modelTimeoutMs: positiveInt.max(2 ** 31 - 1).optional(),
  maxInputBytes: positiveInt.optional(),
  maxTokens: positiveInt.optional(),
  systemPrompt: z.string().optional(),
});

/** The write-ahead log (docs/spec.md §13.2); the defaults are in journal-policy.ts. */
const journal = strictObject({
  sync: z.enum(SYNC_MODES).optional(),
  batchMs: z.int().min(1).max(1000).optional(),
  snapshotEvery: z.int().min(100).optional(),
  keepSegments: z.int().min(0).max(1000).optional(),
});

const channel = strictObject({
  name: nonEmpty,
  plugin: nonEmpty.optional(),
  owner: z.string().optional(),
  output: nonEmpty.optional(),
});
const output = strictObject({ name: nonEmpty, caps: z.array(nonEmpty).optional() });
const resident = strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, { error: 'must match [a-z0-9][a-z0-9-]* (it names a directory and a channel)' }),
  kind: z.enum(['resident', 'rt']).optional(),
  inputChs: z.array(nonEmpty).optional(),
  allowedOutputs: z.array(nonEmpty).optional(),
  tools: z.array(nonEmpty).optional(),
  taskPrompt: z.string().optional(),
  contextWindowTokens: positiveInt.optional(),
});

const timer = strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, "_" or "-"' }),
  text: nonEmpty,
  /** First firing this long after the start (default: everyMs, or at once). */
  afterMs: ms.optional(),
  /** Fire again every this many milliseconds; absent: once. */
  everyMs: z
    .int()
    .min(1000, { error: 'must be at least 1000 (a timer firing more often floods the agent)' })
    .max(2 ** 31 - 1)
    .optional(),
});

export const serveConfigSchema = strictObject({
  dataDir: nonEmpty.optional(),
  http: strictObject({
    host: nonEmpty.optional(),
    port: z.int().min(0).max(65_535).optional(),
    token: nonEmpty.optional(),
    bodyTimeoutMs: z.int().min(100).max(600_000).optional(),
    maxWatchers: z.int().min(1).max(WATCHERS_MAX).optional(),
    allowedHosts: z
      .array(z.string().regex(HOST_NAME, { error: 'must be a host name, like agent.home.arpa (no scheme, no port)' }))
      .optional(),
  }).optional(),
  providers: providersSchema.optional(),
  tools: z.array(tool).optional(),
  builtinPlugins: z.array(nonEmpty).optional(),
  kernel: kernel.optional(),
  journal: journal.optional(),
  channels: z.array(channel).optional(),
  outputs: z.array(output).optional(),
  residents: z.array(resident).optional(),
  timers: z.array(timer).max(TIMERS_MAX).optional(),
  mcpServers: z.record(z.string(), mcpServer).optional(),
});

export type ServeConfig = z.output<typeof serveConfigSchema>;
export type ToolConfig = z.output<typeof tool>;
export type TimerConfig = z.output<typeof timer>;
export type ResidentConfig = z.output<typeof resident>;
export type McpServerEntry = z.output<typeof mcpServer>;
export type JournalConfig = z.output<typeof journal>;
