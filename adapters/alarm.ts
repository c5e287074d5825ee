/**
 * A wait that a signal cuts short. `arm(ms)` starts it and answers a promise that resolves after
 * `ms` or at the next `wake()`, whichever is first. Armed before a read and awaited after it, a
 * signal that comes during the read is not missed.
 */
export const alarm = () => {
  let ring: (() => void) | undefined
  return {
    arm: (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms)
        ring = () => {
          clearTimeout(timer)
          resolve()
        }
      }),
    wake: () => ring?.(),
  }
}
