// What `kb import` asks of the running service: the admin API's routes of a workspace's entries and folders.
import path from 'node:path'
import type { Item } from './importItem'

export interface Answer {
  status: number
  success: boolean
  data?: any
  error?: { code: string; message: string; details?: string[] }
}

/** The service stopped answering (or answered something that is not the service): the run ends. */
export class Unreachable extends Error {}

export const serviceClient = (base: string, token: string, workspaceId: string) => {
  const root = `${base}/api/v1/admin/workspaces/${encodeURIComponent(workspaceId)}/knowledge`
  const call = async (method: string, url: string, body?: FormData | object): Promise<Answer> => {
    let res: Response
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
        },
        body: body instanceof FormData ? body : body ? JSON.stringify(body) : undefined,
      })
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause
      throw new Unreachable(`the service at ${base} stopped answering (${cause?.message ?? (error as Error).message})`)
    }
    const text = await res.text()
    try {
      return { status: res.status, ...(JSON.parse(text) as Omit<Answer, 'status'>) }
    } catch {
      throw new Unreachable(`${base} answered ${res.status} without the service's JSON: is KB_URL the service?`)
    }
  }

  /** Folder ids by name (case-insensitive, as the service compares them), each created once. */
  const folders = new Map<string, Promise<string>>()
  const key = (name: string) => name.normalize('NFC').toLowerCase()
  const listFolders = async () => {
    const r = await call('GET', `${root}/folders`)
    if (!r.success) return r
    for (const f of r.data.folders as { id: string; name: string }[])
      if (!folders.has(key(f.name))) folders.set(key(f.name), Promise.resolve(f.id))
    return r
  }

  const folderId = (name: string): Promise<string> => {
    const known = folders.get(key(name))
    if (known) return known
    const made = (async () => {
      const r = await call('POST', `${root}/folders`, { name })
      if (r.success) return r.data.id as string
      // Another run made it meanwhile: it is found by name.
      if (r.error?.code === 'CONFLICT') {
        folders.delete(key(name))
        await listFolders()
        const found = folders.get(key(name))
        if (found) return found
      }
      throw new Refused(`its folder "${name}" could not be made: ${reason(r)}`)
    })()
    folders.set(key(name), made)
    made.catch(() => folders.delete(key(name)))
    return made
  }

  /** The entry already holding this item's reference, if any. */
  const existing = async (ref: { key: string; value: string }) => {
    const q = `externalRef.${encodeURIComponent(ref.key)}=${encodeURIComponent(ref.value)}`
    const r = await call('GET', `${root}?${q}&limit=1&includeContent=false`)
    if (!r.success) throw new Refused(reason(r))
    return r.data.items[0] as { id: string; processingStatus: string; failure?: { reason: string } } | undefined
  }

  const create = async (item: Item, folder: string | null, bytes?: Buffer) => {
    const refs = item.ref ? { [item.ref.key]: item.ref.value } : {}
    if (bytes) {
      const form = new FormData()
      form.set('source', 'file')
      if (folder) form.set('folderId', folder)
      form.set('externalReferenceIds', JSON.stringify(refs))
      form.set('file', new Blob([new Uint8Array(bytes)]), path.posix.basename(item.label))
      return call('POST', root, form)
    }
    const e = item.entry!
    return call('POST', root, {
      source: e.url ? 'url' : 'text',
      ...e,
      ...(folder ? { folderId: folder } : {}),
      externalReferenceIds: refs,
    })
  }

  return { call, listFolders, folderId, existing, create }
}

/** An item the service refused: the summary gives the reason, the run goes on. */
export class Refused extends Error {}

/** A refusal's code, message and details as one line. */
export const reason = (r: Answer) => {
  const details = r.error?.details?.length ? ` (${r.error.details.join('; ')})` : ''
  return `${r.error?.code ?? r.status}: ${r.error?.message ?? 'refused'}${details}`
}

/** Whether a service answers at `base` within `ms` (its health, whatever it says). */
export const running = async (base: string, ms = 3000) => {
  try {
    await fetch(`${base}/health`, { signal: AbortSignal.timeout(ms) })
    return true
  } catch {
    return false
  }
}
