// The image tests: `npx vitest run --config test/deploy/image/vitest.config.ts`, a step of
// .ci/run of its own, since the first podman build takes minutes (README, Development).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: new URL('../../..', import.meta.url).pathname,
  test: {
    include: ['test/deploy/image/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 1_200_000,
    pool: 'forks',
  },
});
