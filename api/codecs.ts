import * as t from 'io-ts'

// Codecs at the edge. Their names read as the rest of "must be ...", so a failed decode
// explains itself in VALIDATION_ERROR details.

export const string = (min: number, max: number) =>
  new t.Type<string, string, unknown>(
    min > 0 ? `a string of ${min}-${max} characters` : `a string of at most ${max} characters`,
    (u): u is string => typeof u === 'string',
    (u, c) => (typeof u === 'string' && u.trim().length >= min && u.length <= max ? t.success(u) : t.failure(u, c)),
    t.identity,
  )

export const email = new t.Type<string, string, unknown>(
  'an email address',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' && u.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
)

export const slug = new t.Type<string, string, unknown>(
  'a slug of lowercase letters, digits and dashes (1-60)',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' && /^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$/.test(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
)

/** An id as the service issues them (uuid); anything else cannot name a resource. */
export const id = new t.Type<string, string, unknown>(
  'an id',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' && u.length > 0 && u.length <= 200 ? t.success(u) : t.failure(u, c)),
  t.identity,
)

export const integer = (min: number, max: number) =>
  new t.Type<number, number, unknown>(
    `an integer between ${min} and ${max}`,
    (u): u is number => typeof u === 'number',
    (u, c) => (typeof u === 'number' && Number.isInteger(u) && u >= min && u <= max ? t.success(u) : t.failure(u, c)),
    t.identity,
  )

/** An integer in a query string. */
export const intFromString = (min: number, max: number) =>
  new t.Type<number, string, unknown>(
    `an integer between ${min} and ${max}`,
    (u): u is number => typeof u === 'number',
    (u, c) => {
      const n = typeof u === 'string' && /^-?\d{1,16}$/.test(u) ? Number(u) : NaN
      return Number.isInteger(n) && n >= min && n <= max ? t.success(n) : t.failure(u, c)
    },
    String,
  )

export const booleanFromString = new t.Type<boolean, string, unknown>(
  'true or false',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => (u === 'true' ? t.success(true) : u === 'false' ? t.success(false) : t.failure(u, c)),
  String,
)

/** Optional fields: t.partial of the given props intersected with the required ones. */
export const object = <R extends t.Props, O extends t.Props>(required: R, optional: O, name?: string) =>
  t.intersection([t.type(required), t.partial(optional)], name)

