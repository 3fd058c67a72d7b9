/**
 * `sim run --otlp FILE` (docs/spec.md §12.1, §13.4): the spans of the simulated run, with virtual times,
 * as the OTLP JSON that serve sends to a collector. Token usage enters at the kernel's door (the trace
 * has none), so the run is told to report each `model.done` fact to `usage`.
 */
import { writeFileSync } from 'node:fs';
import type { KernelInput, TraceEvent, Usage } from '../kernel/index.ts';
import { HOMEAGENT_VERSION } from '../server/version.ts';
import { loadOtel, runSpans } from '../telemetry/index.ts';

export class OtlpFile {
  readonly usage = new Map<string, Usage>();

  constructor(readonly path: string) {}

  /** The run's door tap (SimOptions.onInput). */
  readonly onInput = (input: KernelInput): void => {
    if (input.type === 'model.done') this.usage.set(input.callId, input.usage);
  };

  async write(events: readonly TraceEvent[], scenario: string, seed: number): Promise<void> {
    const spans = runSpans(events, this.usage, `sim ${scenario} seed ${seed}`);
    const { otlpJson } = await loadOtel();
    const resource = {
      'service.name': 'homeagent',
      'service.version': HOMEAGENT_VERSION,
      'homeagent.run': 'sim',
      'homeagent.scenario': scenario,
      'homeagent.seed': seed,
    };
    writeFileSync(this.path, `${otlpJson(spans, resource, HOMEAGENT_VERSION)}\n`);
  }
}
