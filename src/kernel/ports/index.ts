/**
 * The kernel's ports (ARCHITECTURE "Ports"): the model and tool ports, held only by the Runtime, and
 * the graph memory port, held by the kernel itself. The Clock lives in src/clock; the TraceSink beside
 * the trace vocabulary it carries.
 */
export * from './graph-memory.ts';
export * from './provider.ts';
export * from './tool-runner.ts';
