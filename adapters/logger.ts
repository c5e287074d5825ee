import pino from 'pino'

/** Structured JSON logs, one object a line, on stdout, or on stderr where stdout is a command's output (the kb CLI). */
export const createLogger = (level: string, to: 'stdout' | 'stderr' = 'stdout') =>
  to === 'stdout'
    ? pino({ level, base: { service: 'kb' } })
    : pino({ level, base: { service: 'kb' } }, pino.destination(2))
export type { Logger } from 'pino'
