/** Waits until `check` holds, asking every 25 ms; past `ms`, fails naming what it waited for. */
export const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 15000) => {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}
