import { Alert, Center, Loader, Pagination, Stack, Text } from '@mantine/core'
import DOMPurify from 'dompurify'
import { html as diffHtml } from 'diff2html'
import MarkdownIt from 'markdown-it'
import type { ReactNode } from 'react'
import type { ApiError } from './api'
import type { Loaded } from './useApi'

/** An API error in words, with the problems it lists. */
export const ErrorAlert = ({ error, title = 'Something went wrong' }: { error: ApiError; title?: string }) => (
  <Alert color="red" title={title} role="alert">
    <Text size="sm">{error.message}</Text>
    {error.details.map((d) => (
      <Text size="sm" key={d}>
        {d}
      </Text>
    ))}
  </Alert>
)

/** A list's loading, error and empty states around what it shows. */
export const LoadState = <T,>({
  loaded,
  empty,
  isEmpty,
  children,
}: {
  loaded: Loaded<T>
  empty: string
  isEmpty: (data: T) => boolean
  children: (data: T) => ReactNode
}) => {
  if (loaded.error) return <ErrorAlert error={loaded.error} />
  if (loaded.data === undefined)
    return (
      <Center p="xl" aria-busy="true">
        <Loader aria-label="Loading" />
      </Center>
    )
  if (isEmpty(loaded.data))
    return (
      <Text c="dimmed" p="md" data-testid="empty">
        {empty}
      </Text>
    )
  return <>{children(loaded.data)}</>
}

// Links from user content never run script and open apart from the console.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('rel', 'noopener noreferrer nofollow')
    node.setAttribute('target', '_blank')
  }
})

// Raw HTML in content is escaped, and markdown-it refuses javascript: links; DOMPurify checks again.
const md = new MarkdownIt({ html: false, linkify: true })

/** Markdown of users and agents, rendered and sanitised: no script, no handler, no javascript: link. */
export const Markdown = ({ source }: { source: string }) => (
  <div
    className="markdown"
    // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised by DOMPurify just above
    dangerouslySetInnerHTML={{
      __html: DOMPurify.sanitize(md.render(source), { FORBID_TAGS: ['style'] }),
    }}
  />
)

/** A unified diff rendered side by side or line by line (diff2html escapes the text). */
export const Diff = ({ diff, layout }: { diff: string; layout: 'side-by-side' | 'line-by-line' }) =>
  diff.trim() ? (
    <div
      className="diff"
      data-testid={`diff-${layout}`}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: diff2html's output, its text escaped
      dangerouslySetInnerHTML={{
        __html: DOMPurify.sanitize(diffHtml(diff, { outputFormat: layout, drawFileList: false, matching: 'lines' })),
      }}
    />
  ) : (
    <Text c="dimmed">No difference.</Text>
  )

/** Names for a pagination's previous and next buttons (icons alone say nothing to a screen reader). */
const pageControl = (control: string) => ({
  'aria-label': control === 'previous' ? 'Previous page' : control === 'next' ? 'Next page' : control,
})

/** A list's page numbers (at least one), with named arrows. */
export const ListPagination = (p: {
  total: number
  pageSize: number
  page: number
  onChange: (page: number) => void
  label: string
}) => (
  <Pagination
    getControlProps={pageControl}
    total={Math.max(1, Math.ceil(p.total / p.pageSize))}
    value={p.page}
    onChange={p.onChange}
    aria-label={p.label}
  />
)

export const when = (iso?: string | null) => (iso ? new Date(iso).toLocaleString() : '—')

/** A text field of an author or an actor (the log's actors are open objects). */
export const field = (who: object, name: string) => {
  const value = (who as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : undefined
}

/** Who wrote a version: a person, or an agent client (and its skill). */
export const authorName = (a: object | null | undefined) => {
  if (!a) return '—'
  if (field(a, 'kind') === 'agent') {
    const skill = field(a, 'skill')
    return `agent ${field(a, 'client')}${skill ? ` (${skill})` : ''}`
  }
  return field(a, 'name') ?? field(a, 'email') ?? field(a, 'userId') ?? 'a person'
}

/** Who searched or wrote: an agent by its client, a person by name, "you", or another member. */
export const actorName = (actor: object, me?: string) =>
  field(actor, 'kind') === 'agent' || field(actor, 'name')
    ? authorName(actor)
    : field(actor, 'userId') === me
      ? 'you'
      : 'another member'

export const Stacked = ({ children }: { children: ReactNode }) => <Stack gap="md">{children}</Stack>

/** A count of times in words: "1 time", "2 times". */
export const times = (n: number) => `${n} ${n === 1 ? 'time' : 'times'}`
