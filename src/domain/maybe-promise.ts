/**
 * A value at hand, or a promise of it when it needs I/O. Lets a hot path answer from memory
 * without a promise and a microtask per step (authentication and authorization of every request),
 * while a caller that awaits it sees no difference.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)`: at once when the value is at hand, else once it settles (a rejection passes on). */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
