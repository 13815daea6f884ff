/** A bad setting: its message is one line naming the variable or file, never a secret. */
export class ConfigError extends Error {}
