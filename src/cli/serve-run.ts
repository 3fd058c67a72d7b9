/**
 * What `homeagent serve` does once its flags are parsed (serve.ts registers the command and says what
 * it prints and how it exits): resolves the settings, starts the server, and shuts it down on a signal
 * or a kernel failure.
 */
import { createServer, StartError, type RunningServer } from '../server/create-server.ts';
import { resolveSettings, type ServeFlags } from '../server/settings.ts';
import { EXIT_FAILED, EXIT_UNUSABLE, formatProblems, writeStdout, type ExitCode } from './cli-io.ts';
import { beforeSignalExit } from './shutdown.ts';

/** How long the open connections get to take their answers before the process exits. */
const CONNECTIONS_WAIT_MS = 500;

export async function serve(flags: ServeFlags): Promise<ExitCode> {
  const resolved = resolveSettings(flags, process.env, process.stderr.isTTY === true);
  if (!resolved.ok) {
    process.stderr.write(`${formatProblems('homeagent serve', resolved.problems)}\n`);
    return EXIT_UNUSABLE;
  }
  let running: RunningServer | null = null;
  let server: RunningServer;
  try {
    server = await createServer(resolved.settings, {
      log: (line) => process.stderr.write(`${line}\n`),
      logStream: process.stderr,
      stdin: process.stdin,
      stdout: process.stdout,
      env: process.env,
      // A failure while starting (a channel registration, say) has no server to stop yet: the start fails.
      onFatal: () =>
        setImmediate(
          () =>
            void (running === null
              ? process.exit(EXIT_FAILED)
              : stopAndExit(running, 'the kernel failed', EXIT_FAILED)),
        ),
    });
  } catch (err) {
    if (!(err instanceof StartError)) throw err;
    process.stderr.write(`homeagent serve: ${err.message}\n`);
    return EXIT_UNUSABLE;
  }
  running = server;
  beforeSignalExit(() => shutDown(server, 'signal'));
  if (server.recovered !== null) await writeStdout(`${server.recovered}\n`);
  await writeStdout(`listening on ${server.url}\n`);
  // Runs until a signal: shutdown.ts exits once the hook above has answered everyone.
  return new Promise<ExitCode>(() => undefined);
}

async function shutDown(server: RunningServer, why: string): Promise<void> {
  const result = await server.shutdown(why);
  await writeStdout(`trace ${result.traceHash} (${result.events} events)\n`);
  await server.closeConnections(CONNECTIONS_WAIT_MS);
}

async function stopAndExit(server: RunningServer, why: string, code: ExitCode): Promise<void> {
  await shutDown(server, why);
  process.exit(code);
}
