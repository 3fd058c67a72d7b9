// docs/examples/run-a-scenario.ts: read a scenario file, run it on virtual time, read the report.
import { loadScenarioFile, runScenario } from 'homeagent';

// From a clone; in an installed package the same file is node_modules/homeagent/scenarios/….
const scenario = await loadScenarioFile('scenarios/e5-nested-to-the-bound.json');
const report = await runScenario(scenario, { seed: 7 });

console.log(`${report.scenario}, seed ${report.seed}: ${report.ok ? 'OK' : 'FAILED'}`);
console.log(`suspended, in order: ${report.suspendOrder.join(' ')}`);
console.log(`resumed, in order:   ${report.resumeOrder.join(' ')}`);
console.log(`deepest suspend stack: ${report.maxStackDepth}`);
console.log(`reproduce: ${report.command}`);
