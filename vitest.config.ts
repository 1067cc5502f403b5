import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The container image tests build an image (minutes the first time): a step of .ci/run
    // of their own, with test/deploy/image/vitest.config.ts.
    exclude: [...configDefaults.exclude, 'test/deploy/image/**'],
    // Builds dist/ when stale: the CLI tests spawn bin/gatehouse.js, which runs dist/.
    globalSetup: ['test/harness/build-dist.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
