// Connection strings carry credentials (`scheme://user:password@host/...`): what is shown of one, in
// an error or a log line, leaves them out.

/**
 * Where a connection string's credentials end: its last `@` (a password may hold `/`, `?` or `@`
 * of its own; an `@` further on, in a query string, takes the host out with them, which shows too
 * little rather than too much).
 */
const credentialsOf = (url: string) => /^[a-z][a-z0-9+.-]*:\/\/(.*)@/is.exec(url)?.[1]

/** A connection string with its user and password (everything before the host's `@`) left out. */
export const withoutCredentials = (url: string) => {
  const credentials = credentialsOf(url)
  return credentials === undefined ? url : url.replace(`${credentials}@`, '')
}

/** A message that may quote the connection string, with the credentials taken out. */
export const masked = (message: string, url: string) => {
  const credentials = credentialsOf(url)
  return credentials ? message.split(credentials).join('***') : message
}
