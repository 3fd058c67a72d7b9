/** Planted bugs in src/server and src/runtime: the HTTP surface and the production Runtime. */
import type { PlantedBug } from '../bug.ts';

export const SERVER_BUGS: readonly PlantedBug[] = [
  {
    id: 'server-task-read-without-token',
    room: 'server',
    slip: '`GET /v1/tasks/{id}` is let through without the bearer token ("only a status read")',
    file: 'src/server/http-channel.ts',
    find: 'if (!this.authorized(req)) {',
    replace: 'if (!this.authorized(req) && !(read && /^\\/v1\\/tasks\\/[^/]+$/.test(path))) {',
    tests: ['test/server/auth-table.test.ts'],
  },
  {
    id: 'server-body-limit-off-by-one',
    room: 'server',
    slip: '`>` becomes `>=` in the streamed body check: a body of exactly 1 MiB is refused with 413',
    file: 'src/server/http-io.ts',
    find: 'if (bytes > BODY_BYTES_MAX) {',
    replace: 'if (bytes >= BODY_BYTES_MAX) {',
    tests: ['test/server/limits.test.ts'],
  },
  {
    id: 'server-ended-tasks-kept-one-short',
    room: 'server',
    slip: '`>` becomes `>=` in the task board trim: 999 ended tasks are kept, not ENDED_TASKS_KEPT (1 000)',
    file: 'src/server/task-board.ts',
    find: 'while (this.ended.size > ENDED_TASKS_KEPT)',
    replace: 'while (this.ended.size >= ENDED_TASKS_KEPT)',
    tests: ['test/server/task-board.test.ts', 'test/server/id-limits.test.ts'],
  },
];

export const RUNTIME_BUGS: readonly PlantedBug[] = [
  {
    id: 'runtime-tool-cancel-wrong-map',
    room: 'runtime',
    slip: "the Runtime's `tool.cancel` looks the call up in the model streams' map: a tool call is never aborted",
    file: 'src/runtime/runtime.ts',
    find: "case 'tool.cancel':\n        this.toolCalls.get(command.callId)?.abort(CANCELLED);",
    replace: "case 'tool.cancel':\n        this.streams.get(command.callId)?.abort(CANCELLED);",
    tests: ['test/runtime/runtime-cancel.test.ts'],
  },
  {
    id: 'runtime-abandoned-life-delivers',
    room: 'runtime',
    slip: 'deliverFrom drops its life check: a call of an abandoned kernel delivers its fact to the recovered one',
    file: 'src/runtime/runtime.ts',
    find: 'if (life === this.life) this.deliver(fact);',
    replace: 'this.deliver(fact);',
    tests: ['test/runtime/runtime.test.ts', 'test/runtime/runtime-cancel.test.ts'],
  },
  {
    id: 'server-failed-start-keeps-outputs',
    room: 'server',
    slip: 'the --journal and --trace outputs get no closer: a start that fails after opening them leaves them open',
    file: 'src/server/create-server.ts',
    find: '  for (const output of [outputs.journal, outputs.trace])\n    if (output !== null) started.closers.push(() => output.file.close());\n',
    replace: '',
    tests: ['test/server/start-failure.test.ts'],
  },
  {
    id: 'server-refused-start-keeps-memory',
    room: 'server',
    slip: 'the main memory store gets no closer: a start refused after a resident opened it leaves memory.sqlite open',
    file: 'src/server/create-server.ts',
    find: '  started.closers.push(() => store.close());\n',
    replace: '',
    tests: ['test/server/start-refusals.test.ts'],
  },
];
