#!/usr/bin/env node
// The `homeagent` command runs the TypeScript sources through tsx, so it works straight after
// `npm ci` with no build step (also as `npx homeagent`).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
