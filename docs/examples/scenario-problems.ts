// docs/examples/scenario-problems.ts: a document that is not a usable scenario, and its problems.
import { parseScenario, ScenarioError } from 'homeagent';

try {
  parseScenario({
    version: 1,
    name: 'greeting',
    inputs: [
      { id: 'hello', class: 'queued', level: 'L2' },
      { id: 'later', class: 'interrupt', level: 'L3', when: { task: 'nobody', step: 'Model' } },
    ],
  });
} catch (err) {
  if (!(err instanceof ScenarioError)) throw err;
  console.log(err.message);
  console.log(`first problem at ${err.problems[0]?.path}`);
}
