import { defineConfig } from "vitest/config";

/** Test files that replace modules (`vi.mock`): they need modules of their own. */
const MOCKING = ["test/integration/auth-routes.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two cores: integration suites spawn real child servers, so keep parallelism modest.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: MOCKING,
          // A worker runs many files with one module cache: evaluating the gateway's modules anew for
          // each of ~140 files cost over two minutes. Files restore what they change (environment
          // variables, servers, processes); module-level state is process-wide by design.
          isolate: false,
        },
      },
      { extends: true, test: { name: "isolated", include: MOCKING } },
    ],
  },
});
