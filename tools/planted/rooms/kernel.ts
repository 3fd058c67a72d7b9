/** Planted bugs in src/kernel: the five of the E4/swarm history (docs/planted-bugs.md) and more. */
import type { PlantedBug } from '../bug.ts';

export const KERNEL_BUGS: readonly PlantedBug[] = [
  {
    id: 'kernel-equal-level-preempts',
    room: 'kernel',
    slip: '`>` becomes `>=` in canPreempt: an interrupt preempts a task of equal effective level',
    file: 'src/kernel/scheduler/levels.ts',
    find: 'return effectiveLevel(incoming) > effectiveLevel(running);',
    replace: 'return effectiveLevel(incoming) >= effectiveLevel(running);',
    tests: ['test/kernel/scheduler/levels.test.ts', 'test/kernel/scheduler/core.preemption.test.ts'],
  },
  {
    id: 'kernel-fifo-resume',
    room: 'kernel',
    slip: 'SuspendStack.pop takes the bottom entry (shift): suspended tasks resume first-in first-out',
    file: 'src/kernel/scheduler/suspend-stack.ts',
    find: 'const entry = this.entries.pop();',
    replace: 'const entry = this.entries.shift();',
    tests: ['test/kernel/scheduler/suspend-stack.test.ts'],
  },
  {
    id: 'kernel-stop-loses-terminal',
    room: 'kernel',
    slip: 'Scheduler.stopQueued empties the queued FIFO without ending its tasks: no terminal for them',
    file: 'src/kernel/scheduler/core.ts',
    find: 'this.end(task, terminal, nowMs);\n      cancelled.push(task.id);',
    replace: 'cancelled.push(task.id);',
    tests: ['test/kernel/scheduler/core.test.ts'],
  },
  {
    id: 'kernel-cancel-keeps-call-id',
    room: 'kernel',
    slip: 'CallTracker.cancelModel does not release the call id: a cancelled model call stays routed to its agent',
    file: 'src/kernel/agent/calls.ts',
    find: "    this.ports.releaseCall(callId, task.id, 'early');\n    this.ports.trace(nowMs, { type: 'model.cancel'",
    replace: "    this.ports.trace(nowMs, { type: 'model.cancel'",
    tests: ['test/kernel/agent/calls.test.ts', 'properties/kernel.regressions.test.ts'],
  },
  {
    id: 'kernel-cooldown-off-by-one',
    room: 'kernel',
    slip: '`<` becomes `<=` in isInCooldown: the cooldown lasts one millisecond too long',
    file: 'src/kernel/scheduler/core.ts',
    find: 'nowMs - task.lastSuspendedAtMs < this.config.cooldownMs',
    replace: 'nowMs - task.lastSuspendedAtMs <= this.config.cooldownMs',
    tests: ['test/kernel/scheduler/core.test.ts', 'test/kernel/scheduler/core.starvation.test.ts'],
  },
  {
    id: 'kernel-cooldown-not-restarted',
    room: 'kernel',
    slip: 'a second suspension keeps the first suspension time (`??=`): the cooldown is not restarted',
    file: 'src/kernel/scheduler/core.ts',
    find: 'running.lastSuspendedAtMs = nowMs;',
    replace: 'running.lastSuspendedAtMs ??= nowMs;',
    tests: ['test/kernel/scheduler/core.starvation.test.ts', 'properties/scheduler.regressions.test.ts'],
  },
];
