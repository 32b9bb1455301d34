/** Time source. Tests swap it for a fake clock through the `clock` option. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
