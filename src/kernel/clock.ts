/** Milliseconds since the epoch; injected so tests never sleep on real timers. */
export type Clock = () => number;
