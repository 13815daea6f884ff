export {
  LITESTREAM_CHECKPOINTS,
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
