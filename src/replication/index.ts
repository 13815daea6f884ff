export {
  LITESTREAM_DATABASE_SETTINGS,
  litestreamConfigPath,
  renderLitestreamConfig,
  writeLitestreamConfig,
} from './config-file';
export {
  findLitestream,
  LITESTREAM_MISSING,
  runUnderLitestream,
  serverCommand,
  UNDER_LITESTREAM,
} from './launch';
export { copyFromReplica, forgetReplicationState, type ReplicaCopy } from './restore';
