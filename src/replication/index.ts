export {
  LITESTREAM_DATABASE_SETTINGS,
  litestreamConfigPath,
  metricsAddress,
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
export {
  litestreamFolder,
  ReplicationMonitor,
  type ReplicationMonitorOptions,
  type ReplicationStatus,
  readingOf,
} from './status';
