// What the kb CLI prints of each command's answer (stdout), and the failures it ends with.
import type { ChainReport } from '../../adapters/eventstore/chain'
import { printReplay } from './replay'

/** A failure (the service or the database unreachable or refusing): one line, exit 1. */
export const failure = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

export const print = (args: string[], data: any) => {
  if (args[0] === 'stream') {
    for (const e of data.events) process.stdout.write(`${JSON.stringify(e)}\n`)
    return
  }
  if (args[0] === 'reembed') {
    for (const r of data.reembedded)
      process.stdout.write(`re-embedded workspace ${r.workspaceId}: ${r.vectors} vectors with ${r.model}\n`)
    return
  }
  if (args[0] === 'verify-chain') {
    const report = data as ChainReport
    for (const h of report.chains)
      process.stdout.write(`chain ${h.chain || '(no workspace)'}: head ${h.hash} at position ${h.position}\n`)
    process.stdout.write(`verified ${report.verified} events; ${report.cut} cut by deletions, their hashes kept\n`)
    const b = report.broken
    if (b) failure(`broken at position ${b.position} (stream ${b.streamId}, revision ${b.revision}): ${b.reason}`)
    return
  }
  if (args[0] === 'receipt-keys') {
    if (data.removed) process.stdout.write(`removed receipt key ${data.id}\n`)
    for (const k of data.keys ?? [])
      process.stdout.write(`${k.id}  created ${k.createdAt}${k.signing ? '  signing' : ''}\n`)
    return
  }
  if (args[1] === 'status') {
    process.stdout.write(`head position ${data.head}\n`)
    for (const p of data.projections)
      process.stdout.write(
        `${p.name.padEnd(16)} position ${String(p.position).padStart(10)}  lag ${String(p.lag).padStart(8)}` +
          `${p.state ? `  ${p.state}` : ''}\n`,
      )
    return
  }
  if (data.replay) printReplay(data.replay, (line) => process.stdout.write(`${line}\n`))
  for (const r of data.rebuilt)
    process.stdout.write(`rebuilt ${r.name}: ${r.events} events to position ${r.position} in ${r.ms} ms\n`)
  if (data.replay?.verdict === 'refused') failure('kb: the rebuild was not swapped in: its replay refused it')
}
