/**
 * The human trace line (src/trace-file/human-line.ts) written out for every event type, and for the
 * other side of every optional part: the production log and the report's violation context print
 * exactly these lines, and readers grep them.
 */
import { describe, expect, it } from 'vitest';
import type { TraceBody, TraceType } from '../../src/kernel/trace/vocabulary.ts';
import { formatTraceLine } from '../../src/trace-file/index.ts';
import { SAMPLES } from './samples.ts';

const line = (body: TraceBody): string => formatTraceLine({ seq: 1, t: 0, agent: 'root', ...body });

const EXPECTED: { [K in TraceType]: string } = {
  'task.submitted': 't=0ms #1 root  task.submitted    i3 L2 src=kernel kernel',
  'task.rejected': 't=0ms #1 root  task.rejected     x reason=invalid',
  backpressure: 't=0ms #1 root  backpressure      q9 queueLen=256',
  'interrupt.registered': 't=0ms #1 root  interrupt.registered  i3 L2',
  'preempt.armed': 't=0ms #1 root  preempt.armed     i3(L2) → q7 reason=register evicted=i2',
  'preempt.deferred': 't=0ms #1 root  preempt.deferred  i3 vs - reason=cooldown',
  'queue.drop': 't=0ms #1 root  queue.drop        i1(L1) dropped for i5',
  'cooldown.timer': 't=0ms #1 root  cooldown.timer    at=3520ms',
  'task.start': 't=0ms #1 root  task.start        q7 from=queue',
  'task.suspend': 't=0ms #1 root  task.suspend      q7(queued,eff0) ← i3 at Model depth=1 reason=preempt',
  'task.resume': 't=0ms #1 root  task.resume       q7(queued,eff0) after=i3 depth=0',
  'critical.enter': 't=0ms #1 root  critical.enter    q7',
  'critical.leave': 't=0ms #1 root  critical.leave    q7',
  'task.terminal': 't=0ms #1 root  task.terminal     q7 skipped/queue_full ""',
  stop: 't=0ms #1 root  stop              s1 cancelled=[q1,q2] marked=q3',
  'step.begin': 't=0ms #1 root  step.begin        q7 ToolExec turn=2',
  'step.end': 't=0ms #1 root  step.end          q7 ToolExec',
  'model.start': 't=0ms #1 root  model.start       q7 call=m4 turn=1 reply#1',
  'model.end': 't=0ms #1 root  model.end         q7 call=m4 failed tools=[] error="fail"',
  'model.cancel': 't=0ms #1 root  model.cancel      q7 call=m4 reason=preempt',
  'model.chunk.late': 't=0ms #1 root  model.chunk.late  q7 call=m4',
  'fact.discarded': 't=0ms #1 root  fact.discarded    call=m404 model.done',
  'route.fallback': 't=0ms #1 root  route.fallback    q7 channel=qq/support owner=gone → handled here',
  'channel.register': 't=0ms #1 root  channel.register  qq/support plugin=qq owner=-',
  'channel.unregister': 't=0ms #1 root  channel.unregister  qq/support',
  'tools.set': 't=0ms #1 root  tools.set         [files__read_file,files__write_file]',
  'output.sent': 't=0ms #1 root  output.sent       q7 on qq hello',
  'memory.commit': 't=0ms #1 root  memory.commit     q7 session=task/q7 added=2 skipped=1',
  'memory.consolidate': 't=0ms #1 root  memory.consolidate  root:1 added=0 skipped=0 malformed="not JSON"',
  'tool.start': 't=0ms #1 root  tool.start        q7 call=t1 search {"q":"x"}',
  'tool.end': 't=0ms #1 root  tool.end          q7 call=t1 search PANIC "boom"',
  'tool.result.late': 't=0ms #1 root  tool.result.late  q7 call=t1',
  'context.commit': 't=0ms #1 root  context.commit    q7 kind=turn events=3',
  'context.overflow': 't=0ms #1 root  context.overflow  q7 pruned=12 count=1',
  'kernel.event': 't=0ms #1 root  kernel.event      root:1 cause=q7 source=kernel reason=panic',
  'agent.stop': 't=0ms #1 root  agent.stop        ended=[q1,i2]',
  'child.create': 't=0ms #1 root  child.create      parent=root kind=resident inputChs=[qq/support] prompt="watch"',
  'child.destroy':
    't=0ms #1 root  child.destroy     parent=root by=reclaim residual=drop channels=handback released=[qq/support]',
  'child.reclaim': 't=0ms #1 root  child.reclaim     parent=root promoted=2 skipped=1',
  'child.send': 't=0ms #1 root  child.send        w:2 parent=root',
  'child.notify': 't=0ms #1 root  child.notify      q7 parent=root',
  'child.event': 't=0ms #1 root  child.event       root:3 child=w reason=child_contextfull L4',
  'child.contextfull': 't=0ms #1 root  child.contextfull  parent=root tokens=950 window=1000',
  'child.compress': 't=0ms #1 root  child.compress    w:3 older=4 kept=2 summarised=true dropped=0',
  'child.record': 't=0ms #1 root  child.record      q7 inputch=qq/support note',
  'task.moved': 't=0ms #1 root  task.moved        q8 → root',
  'invariant.violation': 't=0ms #1 root  invariant.violation  STRICT i2 "i2 (eff 1) suspended q1 (eff 1)" cause=#41',
};

describe('formatTraceLine, every event type', () => {
  for (const type of Object.keys(SAMPLES) as TraceType[]) {
    it(type, () => {
      expect(line(SAMPLES[type])).toBe(EXPECTED[type]);
    });
  }
});

describe('formatTraceLine, the optional parts', () => {
  it('a submission: queued, with a channel, from no source, not the kernel', () => {
    expect(
      line({
        type: 'task.submitted',
        task: 'q1',
        class: 'queued',
        level: null,
        kernel: false,
        source: null,
        channel: 'cli',
      }),
    ).toBe('t=0ms #1 root  task.submitted    q1 queued ch=cli');
    expect(
      line({
        type: 'task.submitted',
        task: 'q2',
        class: 'queued',
        level: null,
        kernel: false,
        source: null,
        channel: null,
      }),
    ).toBe('t=0ms #1 root  task.submitted    q2 queued');
  });

  it('preemption without an eviction, and deferred against a victim', () => {
    expect(line({ ...SAMPLES['preempt.armed'], evicted: null })).toBe(
      't=0ms #1 root  preempt.armed     i3(L2) → q7 reason=register',
    );
    expect(line({ ...SAMPLES['preempt.deferred'], victim: 'q7' })).toBe(
      't=0ms #1 root  preempt.deferred  i3 vs q7 reason=cooldown',
    );
  });

  it('an interrupt suspended and resumed at its level, with nothing before the resume', () => {
    expect(line({ ...SAMPLES['task.suspend'], level: 3, eff: 4 })).toBe(
      't=0ms #1 root  task.suspend      q7(L3,eff4) ← i3 at Model depth=1 reason=preempt',
    );
    expect(line({ ...SAMPLES['task.resume'], level: 1, eff: 1, after: null })).toBe(
      't=0ms #1 root  task.resume       q7(L1,eff1) after=- depth=0',
    );
  });

  it('a terminal without a reason, and one without a reply', () => {
    expect(line({ ...SAMPLES['task.terminal'], kind: 'done', reason: null, reply: 'ok' })).toBe(
      't=0ms #1 root  task.terminal     q7 done "ok"',
    );
    expect(line({ ...SAMPLES['task.terminal'], kind: 'cancelled', reason: 'user_stop', reply: null })).toBe(
      't=0ms #1 root  task.terminal     q7 cancelled/user_stop',
    );
  });

  it('a stop that marks nothing; a model reply with tools and no error', () => {
    expect(line({ ...SAMPLES.stop, cancelled: [], marked: null })).toBe(
      't=0ms #1 root  stop              s1 cancelled=[] marked=-',
    );
    const toolCall = (name: string) => ({ callId: `c-${name}`, name, args: '{}' });
    expect(
      line({ ...SAMPLES['model.end'], outcome: 'done', toolCalls: [toolCall('read'), toolCall('write')], error: null }),
    ).toBe('t=0ms #1 root  model.end         q7 call=m4 done tools=[read,write]');
  });

  it('a channel with a plugin and an owner; a consolidation that parsed', () => {
    expect(line({ ...SAMPLES['channel.register'], plugin: '', owner: 'w' })).toBe(
      't=0ms #1 root  channel.register  qq/support plugin=- owner=w',
    );
    expect(line({ ...SAMPLES['memory.consolidate'], added: 3, malformed: null })).toBe(
      't=0ms #1 root  memory.consolidate  root:1 added=3 skipped=0',
    );
  });

  it('a tool that succeeded and one that failed without panicking', () => {
    expect(line({ ...SAMPLES['tool.end'], ok: true, panicked: false, result: '42' })).toBe(
      't=0ms #1 root  tool.end          q7 call=t1 search ok "42"',
    );
    expect(line({ ...SAMPLES['tool.end'], ok: false, panicked: false })).toBe(
      't=0ms #1 root  tool.end          q7 call=t1 search ERR "boom"',
    );
  });

  it('a child without a prompt; an automatic record; a violation of no task and no cause', () => {
    expect(line({ ...SAMPLES['child.create'], kind: 'rt', inputChs: [], taskPrompt: null })).toBe(
      't=0ms #1 root  child.create      parent=root kind=rt inputChs=[]',
    );
    expect(line({ ...SAMPLES['child.record'], proactive: false })).toBe(
      't=0ms #1 root  child.record      q7 inputch=qq/support auto',
    );
    expect(line({ ...SAMPLES['invariant.violation'], task: null, cause: 0 })).toBe(
      't=0ms #1 root  invariant.violation  "i2 (eff 1) suspended q1 (eff 1)"'.replace(
        'violation  ',
        'violation  STRICT ',
      ),
    );
  });

  it('an event with nothing to show ends at its type, without trailing spaces', () => {
    expect(line({ type: 'critical.enter', task: '' })).toBe('t=0ms #1 root  critical.enter');
  });

  it('texts of 60 code points are shown whole; one more is cut to 60 and an ellipsis', () => {
    const sixty = '😀'.repeat(59) + 'x';
    expect(line({ ...SAMPLES['output.sent'], text: sixty })).toBe(`t=0ms #1 root  output.sent       q7 on qq ${sixty}`);
    expect(line({ ...SAMPLES['output.sent'], text: `${sixty}y` })).toBe(
      `t=0ms #1 root  output.sent       q7 on qq ${sixty}…`,
    );
    expect(line({ ...SAMPLES['tool.start'], args: 'a'.repeat(61) })).toBe(
      `t=0ms #1 root  tool.start        q7 call=t1 search ${'a'.repeat(60)}…`,
    );
  });
});
