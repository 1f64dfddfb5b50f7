import type { ColumnType, JSONColumnType } from 'kysely';

/*
 * Column conventions (see `createDb`): `bigint`, `bigserial` and `numeric` read as JS numbers;
 * `timestamptz` reads as `Date` and accepts a `Date` or an ISO string; `jsonb` columns are
 * written as JSON text (`JSON.stringify(value)`), because `pg` would turn a JS array into a
 * PostgreSQL array literal, not JSON; `text[]` columns take plain string arrays.
 */

/** A `timestamptz` the writer must supply. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A `timestamptz` with a database default (`now()`). */
export type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A `timestamptz` that may be null. */
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
/** A `text[]` column with a default of `'{}'`. */
export type TextArray = ColumnType<string[], string[] | undefined, string[]>;
/** A `jsonb` column with a default, written as JSON text. */
export type GeneratedJson<T extends object> = JSONColumnType<T, string | undefined, string>;
/** A nullable `jsonb` column, written as JSON text. */
export type NullableJson<T extends object> = JSONColumnType<
  T | null,
  string | null | undefined,
  string | null
>;
