/**
 * `homeagent serve [--config FILE] [--model demo] [--demo-chunk-ms N] [--host 127.0.0.1] [--port 8787] [--token T]
 * [--data-dir DIR] [--journal FILE] [--trace FILE] [--log-format json|text] [--no-terminal]`
 * (docs/spec.md §13.1): runs the kernel in production until SIGINT, SIGTERM or SIGHUP.
 *
 * stdout carries exactly one line when the server is ready, `listening on http://HOST:PORT`, then
 * (besides terminal replies) one last line on shutdown, `trace <hash> (<n> events)` — the hash
 * `homeagent sim replay` gives for the journal. The log is on stderr, readable text when stderr is a
 * terminal and JSON lines otherwise, unless `--log-format` says which. Unusable settings (a bad
 * config file or flag, a non-loopback host without a token, a key variable that is not set, a port
 * in use) exit 2 with every problem named. A signal shuts down gracefully and exits 130, 143 or 129
 * (SIGINT, SIGTERM, SIGHUP), the shell's convention; a kernel failure shuts down and exits 1.
 */
import type { Command } from 'commander';
import { DEFAULT_HOST, DEFAULT_PORT, DEMO_CHUNK_MS_DEFAULT, TOKEN_ENV } from '../server/serve-defaults.ts';
import type { ServeFlags } from '../server/settings.ts';

const EXAMPLES = `
Examples:
  # the scripted demo model: no configuration, no key; type lines, or POST to /v1/inputs
  $ npx homeagent serve --model demo
  $ curl -s http://127.0.0.1:8787/v1/inputs -H 'Content-Type: application/json' -d '{"text":"hello"}'
  # real providers from a config file, with a journal to replay later with \`homeagent sim replay\`
  $ OPENAI_API_KEY=sk-... npx homeagent serve --config homeagent.json --journal run.jsonl
  # reachable from other machines: a token is required
  $ HOMEAGENT_TOKEN=change-me npx homeagent serve --config homeagent.json --host 0.0.0.0 --no-terminal
`;

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the agent with real models (or --model demo): HTTP API, terminal, timers, journal')
    .option('--config <file>', 'JSON configuration: providers, tools, kernel, … (docs/spec.md §13.1)')
    .option('--model <name>', '"demo": the scripted demo model, no configuration needed')
    .option(
      '--demo-chunk-ms <ms>',
      `the demo model's pause before each streamed chunk (default ${DEMO_CHUNK_MS_DEFAULT}; 0: none)`,
    )
    .option('--host <host>', `address to listen on (default ${DEFAULT_HOST}; any other needs a token)`)
    .option('--port <n>', `port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)`)
    .option('--token <token>', `bearer token every /v1/* request must send (also ${TOKEN_ENV})`)
    .option('--data-dir <dir>', 'where the graph memory lives (default ~/.homeagent; created if missing)')
    .option('--journal <file>', 'also write the journal to this file, for export and `homeagent sim replay`')
    .option('--no-journal', 'no durability: nothing survives a restart (the journal in <data-dir>/journal/ is off)')
    .option('--trace <file>', 'also write the canonical trace lines to this file')
    .option('--log-format <format>', 'json or text (default: text when stderr is a terminal, else json)')
    .option('--no-terminal', 'no interactive terminal channel on stdin')
    .addHelpText('after', EXAMPLES)
    .action(async (flags: ServeFlags) => {
      // The server, its model SDKs, MCP client and SQLite load here, when `serve` runs: every other
      // command starts without them.
      const { serve } = await import('./serve-run.ts');
      process.exitCode = await serve(flags);
    });
}
