// docs/examples/check-a-scenario.ts: a scenario written in code, run as a test.
import { expectScenarioPasses, scenario, ScenarioFailure } from 'homeagent/testing';

// A queued task calls a slow tool; an L4 alert arrives while the tool runs. A tool call is a
// critical section, so the alert waits for the tool, then preempts the task at its next safe point.
const alarm = scenario('alarm-during-tool')
  .seed(4)
  .builtinPlugins('webui')
  .tool('backup', { durationMs: 3000, result: 'backed up 12 files' })
  .input('work', {
    text: 'back up my notes',
    replies: [{ tools: [{ name: 'backup' }] }, { text: 'done: 12 files' }],
  })
  .interrupt('alert', 'L4', {
    source: 'webui/panel',
    text: 'smoke detected',
    when: { task: 'work', step: 'ToolExec', afterMs: 500 },
  });

const report = await expectScenarioPasses(
  alarm.expect({ finishOrder: ['alert', 'work'], suspendOrder: ['work'], replyContains: { work: '12 files' } }),
);
console.log(`passed: alert started at t=${report.tasks['alert']?.startedAt} ms, after the tool`);

// The same scenario with a wrong expectation: the failure names it, and the command that runs it.
try {
  await expectScenarioPasses(alarm.expect({ finishOrder: ['work', 'alert'] }), { failureDir: 'failures' });
} catch (err) {
  if (!(err instanceof ScenarioFailure)) throw err;
  console.log(err.message);
}
