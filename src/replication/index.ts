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
  SFTP_RESTORE_HINT,
  serverCommand,
  UNDER_LITESTREAM,
} from './launch';
export { copyFromReplica, forgetReplicationState, type ReplicaCopy } from './restore';
export {
  ReplicationMonitor,
  type ReplicationMonitorOptions,
  type ReplicationStatus,
  readingOf,
} from './status';
