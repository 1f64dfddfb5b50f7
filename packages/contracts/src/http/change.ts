import { z } from 'zod';

type Undefaulted<S extends z.ZodRawShape> = {
  [K in keyof S]: S[K] extends z.ZodDefault<infer T> ? T : S[K];
};

/**
 * The body of a change (`PATCH`) to what `schema` creates: every field optional and none defaulted,
 * so a change touches only the fields it names. (zod applies a field's default even inside
 * `.partial()`: an edit of an intent's phrases alone would deactivate it and clear its entities.)
 */
export function changeSchema<S extends z.ZodRawShape>(schema: z.ZodObject<S>) {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => [
      key,
      field instanceof z.ZodDefault ? field.unwrap() : field,
    ]),
  ) as Undefaulted<S>;
  return z.object(shape).partial();
}

/** A change must name at least one field. */
export const changesSomething = (body: object) => Object.keys(body).length > 0;
