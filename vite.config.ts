/// <reference types="vitest/config" />
import { defineConfig } from 'vite';

// One config for the build and the tests. Browser bundles are added here by the issues that create them
// (loader, frame, demo); the test projects split fast in-process tests from tests that drive real Chromium.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.{ts,tsx}'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          // Real Chromium on a 2-core shared machine: one file at a time keeps timings sane.
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
