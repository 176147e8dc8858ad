// Jest setup of the `s3redis` project: the tests' lakes run on S3 + Redis.
process.env.ZLAKE_TEST_BACKEND = 's3redis';
