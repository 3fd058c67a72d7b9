/**
 * `npm run bench`: runs every benchmark in this process and prints its table. No timing assertion
 * lives here or in the tests: the numbers are reported, the goals are judged by a person.
 */
import { formatSchedulerTable, runSchedulerBench } from './scheduler.bench.ts';
import { formatSimTable, runSimBench } from './sim.bench.ts';
import { formatToolTurnsTable, runToolTurnsBench } from './tool-turns.bench.ts';
import { formatMemoryTable, runMemoryBench } from './memory.bench.ts';
import { formatModelsTable, runModelsBench } from './models.bench.ts';
import { formatTreeTable, runTreeBench } from './tree.bench.ts';
import { formatScenarioParseTable, runScenarioParseBench } from './scenario-parse.bench.ts';

console.log(`node ${process.version} (${process.platform} ${process.arch})`);
console.log('\n## scheduler\n');
console.log(formatSchedulerTable(await runSchedulerBench()));
console.log('\n## simulator\n');
console.log(formatSimTable(await runSimBench()));
console.log('\n## scenario reader\n');
console.log(formatScenarioParseTable(await runScenarioParseBench()));
console.log('\n## agent tree by size\n');
console.log(formatTreeTable(await runTreeBench()));
console.log('\n## tool turns of one task\n');
console.log(formatToolTurnsTable(await runToolTurnsBench()));
console.log('\n## graph memory\n');
console.log(formatMemoryTable(await runMemoryBench()));
console.log('\n## model adapters\n');
console.log(formatModelsTable(await runModelsBench()));
