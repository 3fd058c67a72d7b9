/**
 * The configuration as the journal header records it (docs/spec.md §13): what `serve` ran with, without any
 * secret. It is built field by field from the settings rather than by deleting the token from a
 * copy, so a secret added to the settings later cannot slip into a journal by default. API keys are
 * never in the settings at all: a provider names the environment variable that holds its key. A
 * `baseURL` is recorded without the credentials it may carry (secrets.ts).
 */
import { publicURL } from './secrets.ts';
import type { ServeSettings } from './settings.ts';

export function publicConfig(s: ServeSettings): Record<string, unknown> {
  return {
    model: s.model.kind,
    providers:
      s.model.kind === 'providers'
        ? s.model.providers.map((p) => ({
            name: p.name,
            kind: p.kind,
            model: p.model,
            ...(p.baseURL === undefined ? {} : { baseURL: publicURL(p.baseURL) }),
            ...(p.apiKeyEnv === undefined ? {} : { apiKeyEnv: p.apiKeyEnv }),
            ...(p.maxTokens === undefined ? {} : { maxTokens: p.maxTokens }),
            ...(p.firstChunkTimeoutMs === undefined ? {} : { firstChunkTimeoutMs: p.firstChunkTimeoutMs }),
          }))
        : [],
    http: {
      host: s.host,
      port: s.port,
      auth: s.token === null ? 'none' : 'bearer',
      bodyTimeoutMs: s.bodyTimeoutMs,
      maxWatchers: s.maxWatchers,
      allowedHosts: s.allowedHosts,
    },
    dataDir: s.dataDir,
    journal: s.journal,
    trace: s.trace,
    logFormat: s.logFormat,
    terminal: s.terminal,
    tools: s.tools.map((t) => ({
      name: t.name,
      command: t.command,
      timeoutMs: t.timeoutMs ?? null,
      parallelSafe: t.parallelSafe ?? false,
    })),
    // The names of an MCP server's variables and headers, never their values (secrets.ts).
    mcpServers: s.mcpServers.map((m) => ({
      name: m.name,
      ...(m.transport.kind === 'stdio'
        ? {
            command: m.transport.command,
            args: m.transport.args,
            env: Object.keys(m.transport.env),
            cwd: m.transport.cwd,
          }
        : { url: publicURL(m.transport.url), headers: Object.keys(m.transport.headers) }),
      tools: m.tools,
      parallelSafe: m.parallelSafe,
      timeoutMs: m.timeoutMs,
    })),
    timers: s.timers,
    channels: s.channels,
    outputs: s.outputs,
    kernel: s.kernel,
    // The collector without the credentials its URL may carry, and the names of its headers only.
    ...(s.telemetry === undefined
      ? {}
      : {
          telemetry: {
            otlp: { endpoint: publicURL(s.telemetry.endpoint), headers: Object.keys(s.telemetry.headers) },
          },
        }),
  };
}
