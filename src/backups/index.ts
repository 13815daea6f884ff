export { type BackupCopy, copyBackup } from './copy';
export { type BackupOptions, type BackupResult, createBackup } from './create';
export { type BackupEntry, findBackup, listBackups, pruneBackups } from './folder';
export { BACKUP_NAME, parseBackupName } from './names';
export { type RestoreResult, restoreDatabase, takeDatabase } from './restore';
export { BackupError, checkSnapshot } from './snapshot';
export { UpgradeError, type UpgradeResult, upgradeDatabase } from './upgrade';
