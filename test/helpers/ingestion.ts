import { type Call, ok } from './service'

/** Polls a task (as clients do) until it completes or fails. */
export const waitForTask = async (call: Call, token: string, taskId: string, ms = 30000) => {
  const deadline = Date.now() + ms
  for (;;) {
    const task = ok(await call('GET', `/api/v1/knowledge/tasks/${taskId}`, { token }))
    if (task.status === 'completed' || task.status === 'failed') return task
    if (Date.now() > deadline)
      throw new Error(`task ${taskId} still ${task.status} after ${ms} ms: ${JSON.stringify(task)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A multipart upload as a browser sends it. */
export const upload = async (
  base: string,
  token: string,
  fields: Record<string, string>,
  file?: { bytes: Buffer; name: string; type?: string },
  path = '/api/v1/knowledge',
) => {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  if (file)
    form.append(
      'file',
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }),
      file.name,
    )
  const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })
  const text = await res.text()
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, body, headers: res.headers }
}
