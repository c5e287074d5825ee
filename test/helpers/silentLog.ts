import pino from 'pino'

/** A logger that writes nothing, for the code under test that asks for one. */
export const silent = pino({ level: 'silent' })
