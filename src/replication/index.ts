export {
  LITESTREAM_DATABASE_SETTINGS,
  litestreamConfigPath,
  metricsAddress,
  renderLitestreamConfig,
  writeLitestreamConfig,
} from './config-file';
export {
  litestreamErrorOf,
  parseGenerations,
  parseHistory,
  parseSnapshots,
  type ReplicaGeneration,
  type ReplicaSnapshot,
} from './history';
export {
  findLitestream,
  LITESTREAM_MISSING,
  runUnderLitestream,
  SFTP_RESTORE_HINT,
  serverCommand,
  UNDER_LITESTREAM,
} from './launch';
export { type ReplicaHistory, ReplicaListing, type ReplicaListingOptions } from './listing';
export { copyFromReplica, forgetReplicationState, type ReplicaCopy } from './restore';
export {
  litestreamFolder,
  ReplicationMonitor,
  type ReplicationMonitorOptions,
  type ReplicationStatus,
  readingOf,
  shownReplicaUrl,
} from './status';
