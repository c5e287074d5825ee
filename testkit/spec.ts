/**
 * Given/when/then specifications for deciders: `given(decider, events).when(command)` folds the
 * events with `evolve`, calls `decide`, and checks what it decided with `then(events)`,
 * `thenNothing()` (a command already satisfied) or `thenFails(code)`; `decided()` and `refusal`
 * give the decision itself to a case that checks parts of it.
 */
import * as E from 'fp-ts/Either'
import * as assert from 'uvu/assert'
import type { Decider, DomainError, ErrorCode } from '../domain/shared'

/** What `decide` answered: the events it decided, or the code of the error it refused with. */
export type Outcome<Ev> = { events: Ev[] } | { error: ErrorCode }

export const given = <C, Ev, S>(decider: Decider<C, Ev, S>, events: NoInfer<Ev>[] = []) => ({
  when: (command: NoInfer<C>) => {
    const state = events.reduce(decider.evolve, decider.initialState())
    const result = decider.decide(command, state)
    const outcome: Outcome<Ev> = E.isLeft(result) ? { error: result.left.code } : { events: result.right }
    return {
      outcome,
      /** The whole refusal (message and details), for a case that checks what it tells the caller. */
      refusal: E.isLeft(result) ? result.left : undefined,
      /** The state the events folded to, for a case that checks it. */
      state,
      /** The events decided; fails the case when the command was refused. */
      decided: (): Ev[] => {
        if ('error' in outcome) assert.unreachable(`refused with ${outcome.error}`)
        return 'events' in outcome ? outcome.events : []
      },
      /** Exactly these events, each of which passes the decider's own codec. */
      then: (expected: NoInfer<Ev>[], message?: string) => {
        assert.equal(outcome, { events: expected }, message)
        for (const event of expected) assert.ok(decider.events.is(event), `not a valid event: ${JSON.stringify(event)}`)
      },
      thenNothing: (message?: string) => assert.equal(outcome, { events: [] }, message),
      thenFails: (code: ErrorCode, message?: string) => assert.equal(outcome, { error: code }, message),
    }
  },
})

/**
 * The same specification for a pure decision that is not a decider (`admit`): given what it
 * reads (configuration, counts), when a request, then its answer or its refusal.
 */
export const decision =
  <G extends unknown[], R, A>(decide: (...args: [...G, R]) => E.Either<DomainError, A>) =>
  (...inputs: G) => ({
    when: (request: R) => {
      const result = decide(...inputs, request)
      return {
        refusal: E.isLeft(result) ? result.left : undefined,
        then: (expected: A, message?: string) => assert.equal(result, E.right(expected), message),
        thenFails: (code: ErrorCode, message?: string) =>
          assert.equal(E.isLeft(result) ? result.left.code : 'admitted', code, message),
      }
    },
  })
