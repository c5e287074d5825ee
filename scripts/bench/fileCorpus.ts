// The generated files the upload benchmarks send: PDF, DOCX, HTML and Markdown of 1-50 pages of
// river vocabulary, the same for a given count on every run.
import { docx, pdf } from '../../testkit/files'
import { apiClient, workspaceTokens } from './client'
import { runUploads } from './uploads'

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'

const WORDS =
  'river delta sediment basin erosion flood plain channel meander levee tide estuary marsh silt gravel ' +
  'current discharge gauge catchment aquifer spring'.split(' ')
let seed = 7
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
const pageText = (i: number, p: number) => {
  let text = `File ${i} page ${p}. `
  while (text.length < 1500) {
    const s = Array.from({ length: 6 + Math.floor(rand() * 10) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(
      ' ',
    )
    text += `${s[0].toUpperCase()}${s.slice(1)}. `
  }
  return text
}

export interface File {
  name: string
  bytes: Buffer
}

export const corpus = async (n: number): Promise<File[]> => {
  seed = 7
  const files: File[] = []
  for (let i = 0; i < n; i++) {
    const pages = Array.from({ length: 1 + Math.floor(rand() * 50) }, (_, p) => pageText(i, p))
    switch (i % 4) {
      case 0:
        files.push({ name: `f${i}.pdf`, bytes: await pdf(pages) })
        break
      case 1:
        files.push({ name: `f${i}.docx`, bytes: await docx(pages) })
        break
      case 2:
        files.push({
          name: `f${i}.html`,
          bytes: Buffer.from(
            `<!doctype html><html><head><title>File ${i}</title></head><body><article>` +
              `${pages.map((p) => `<p>${p}</p>`).join('')}</article></body></html>`,
          ),
        })
        break
      default:
        files.push({ name: `f${i}.md`, bytes: Buffer.from(`# File ${i}\n\n${pages.join('\n\n')}\n`) })
    }
  }
  return files
}

/** Uploads a workspace takes a minute: the files are spread over workspaces of this many. */
const PER_WORKSPACE = 20

/**
 * Uploads every file through the API at `url` (as the admin's new workspaces, which accept every
 * type) and waits until each task is done; the client runs on its own thread, reading each
 * workspace's task list every `pollMs` (a client watching progress: reading them every 100 ms cost
 * the service 1.5 s of its thread in 25).
 */
export const uploadAll = async (url: string, admin: string, files: File[], pollMs = 250) => {
  const call = apiClient(url)
  const tokens = await workspaceTokens(call, admin, Math.ceil(files.length / PER_WORKSPACE))
  for (const token of tokens)
    await call('PATCH', '/api/v1/knowledge/config', token, {
      allowedFileTypes: ['text/plain', 'text/markdown', 'text/html', 'application/pdf', DOCX_TYPE],
    })
  return runUploads({
    url,
    files: files.map((f, i) => ({ name: f.name, bytes: f.bytes, token: tokens[Math.floor(i / PER_WORKSPACE)] })),
    pollMs,
  })
}
