#!/usr/bin/env node
// Entry point for the `gatehouse` command. TypeScript sources run through tsx's loader,
// so the repo works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
