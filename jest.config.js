// Two projects: every test on the embedded backends, and the service
// suite again with its lakes on S3 (s3rver behind the fault proxy) and a
// real Redis (test/helpers/backend.ts).
const { availableParallelism } = require('node:os');

const common = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
  },
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60000,
  // Jest's default is a worker less than the cores: one on a two-core
  // machine, where the tests spend much of their time waiting on child
  // processes, servers and disks, so two workers there finish sooner
  // (docs/development.md).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  projects: [
    { ...common, displayName: 'embedded', testMatch: ['**/*.test.ts'] },
    {
      ...common,
      displayName: 's3redis',
      testMatch: ['**/test/service/*.test.ts'],
      testPathIgnorePatterns: ['/crash\\.test\\.ts$', '/serve\\.test\\.ts$', '/cache\\.test\\.ts$'],
      setupFiles: ['<rootDir>/test/helpers/s3redis-env.ts'],
    },
  ],
};
