import fs from 'node:fs'

/**
 * CPU seconds each thread of this process has used so far, by its OS thread id (Linux: /proc/self/task);
 * empty where the system tells none. A thread that ends between the listing and its read is left out.
 */
export const threadCpuSeconds = () => {
  const out = new Map<number, number>()
  if (!fs.existsSync('/proc/self/task')) return out
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in
      // hundredths of a second (USER_HZ).
      const fields = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')
      out.set(Number(tid), (Number(fields[11]) + Number(fields[12])) / 100)
    } catch {
      // Ended meanwhile.
    }
  }
  return out
}
