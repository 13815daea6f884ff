export { type BackupOptions, type BackupResult, createBackup } from './create';
export { BACKUP_NAME, parseBackupName } from './names';
export { type RestoreResult, restoreDatabase, takeDatabase } from './restore';
export { BackupError, checkSnapshot } from './snapshot';
export { type BackupEntry, findBackup, listBackups, pruneBackups } from './store';
export { UpgradeError, type UpgradeResult, upgradeDatabase } from './upgrade';
