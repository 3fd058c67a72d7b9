/**
 * The live tasks of one agent, by id, with their frames: what the scheduler core ranks by id, the
 * agent driver finds here. It also numbers the agent's kernel-created tasks `<agent>:<n>` (n from 1,
 * in creation order; docs/spec.md §12.2), from a counter, never from time.
 */
import { assert } from '../assert.ts';
import type { Level } from '../scheduler/levels.ts';
import { newFrame, type Task } from './task.ts';

export interface TaskFields {
  readonly id: string;
  readonly level: Level | null;
  readonly source: string;
  readonly channel: string;
  readonly text: string;
  readonly kernel: boolean;
  readonly consolidation?: boolean;
  readonly compress?: boolean;
}

export class TaskTable {
  private readonly tasks = new Map<string, Task>();
  private kernelTaskSeq: number;
  /** The counter's start: a table that has numbered nothing yet still holds it. */
  private readonly seqBase: number;

  /** Kernel-created task ids count from `seqBase` + 1 (docs/spec.md §13.1a: serve moves it on per run). */
  constructor(
    private readonly agentId: string,
    seqBase = 0,
  ) {
    this.kernelTaskSeq = seqBase;
    this.seqBase = seqBase;
  }

  has(id: string): boolean {
    return this.tasks.has(id);
  }

  /** Creates and records a task (its frame empty, its cursor at Prepare). */
  add(fields: TaskFields): Task {
    const task = createTask(this.agentId, fields);
    this.tasks.set(task.id, task);
    return task;
  }

  get(id: string): Task {
    const task = this.tasks.get(id);
    assert(task !== undefined, `O1: the scheduler knows ${id} but the agent ${this.agentId} has no frame for it`);
    return task;
  }

  /** Forgets an ended task and returns it. */
  remove(id: string): Task {
    const task = this.get(id);
    this.tasks.delete(id);
    return task;
  }

  /** The live tasks with their frames, in table order (docs/spec.md §13.2). */
  snapshotTasks(): Task[] {
    return [...this.tasks.values()];
  }

  get lastKernelTaskSeq(): number {
    return this.kernelTaskSeq;
  }

  /** Takes over a snapshot's tasks and kernel task counter; only an empty, unused table may. */
  restoreState(tasks: readonly Task[], kernelTaskSeq: number): void {
    assert(
      this.tasks.size === 0 && this.kernelTaskSeq === this.seqBase,
      `SNAPSHOT: the task table of ${this.agentId} is in use`,
    );
    for (const task of tasks) {
      assert(task.agent === this.agentId, `SNAPSHOT: task ${task.id} of ${task.agent} restored on ${this.agentId}`);
      this.tasks.set(task.id, task);
    }
    this.kernelTaskSeq = kernelTaskSeq;
  }

  nextKernelTaskId(): string {
    this.kernelTaskSeq += 1;
    return `${this.agentId}:${this.kernelTaskSeq}`;
  }
}

function createTask(agent: string, f: TaskFields): Task {
  const consolidation = f.consolidation === true;
  const compress = f.compress === true;
  return {
    id: f.id,
    agent,
    cls: f.level === null ? 'queued' : 'interrupt',
    level: f.level,
    source: f.source,
    channel: f.channel,
    outputChannel: f.channel,
    text: f.text,
    kernel: f.kernel,
    isInterrupt: f.level !== null,
    // Consolidation and compress tasks are never stop-marked (docs/spec.md §2.9).
    stoppable: !consolidation && !compress,
    consolidation,
    compress,
    stopMarked: false,
    discardMarked: false,
    firstStartMs: null,
    frame: newFrame(),
  };
}
