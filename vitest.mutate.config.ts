import { defineConfig } from "vitest/config";

/**
 * The vitest configuration of `npm run mutate` (Stryker's vitest runner). The test files of each
 * area are chosen by mutate/areas.ts (Stryker's `testFiles`); this only keeps the run to one worker
 * and gives slow tests room on a loaded machine.
 */
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
