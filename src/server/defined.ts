/**
 * zod types an absent optional key as `T | undefined`; the kernel's types, under
 * `exactOptionalPropertyTypes`, want the key absent instead. This drops the undefined values, so a
 * checked config object can be handed to the kernel as it is.
 */
export type Defined<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

export function defined<T extends object>(value: T): Defined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Defined<T>;
}
