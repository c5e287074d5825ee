import pino from 'pino'

/** Structured JSON logs (DESIGN.md convention 9). */
export const createLogger = (level: string) => pino({ level, base: { service: 'kb' } })
export type { Logger } from 'pino'
