// A registry-wide symbol, so a value wrapped by one copy of the agent is understood by another.
const MARK: unique symbol = Symbol.for('tessera.withoutDefault') as never;

/** `endpoints` wrapped so that the region's default endpoint is not appended as a fallback. */
export interface WithoutDefault<T> {
  readonly [MARK]: T;
}

export const withoutDefault = <T>(value: T): WithoutDefault<T> => ({ [MARK]: value });

/** [the wrapped value, whether it was wrapped]. */
export const unwrap = (v: unknown): [unknown, boolean] =>
  v && typeof v == 'object' && MARK in v ? [(v as WithoutDefault<unknown>)[MARK], true] : [v, false];
