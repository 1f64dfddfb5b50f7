/** The ISO text of a timestamp column. */
export const iso = (value: Date | string) => new Date(value).toISOString();
