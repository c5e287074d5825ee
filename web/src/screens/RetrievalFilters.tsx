import { Button, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core'
import type { Body } from '../api'

// Retrieval testing's filters: rows of a metadata key (or createdAt, updatedAt), an operator and a value, sent as
// the search's `filter`, as agents send it to kb_search.

export interface FilterRow {
  key: string
  op: Operator
  value: string
}

const OPERATORS = {
  eq: '=',
  not: '≠',
  in: 'one of',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  exists: 'is present',
  missing: 'is absent',
} as const
type Operator = keyof typeof OPERATORS
const TIMES = ['createdAt', 'updatedAt'] as const
const BOUNDS: Operator[] = ['gt', 'gte', 'lt', 'lte']

type Filter = NonNullable<Body<'/api/v1/knowledge/search', 'post'>['filter']>

/** A value as typed: "quoted" is a string, true and false are booleans, a number is a number, else a string. */
const valueOf = (typed: string): string | number | boolean => {
  const s = typed.trim()
  if (/^".*"$/.test(s)) return s.slice(1, -1)
  if (s === 'true' || s === 'false') return s === 'true'
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s)
  return s
}

/** A date typed alone (2026-01-31) is that day's start in UTC; a full ISO time is sent as typed. */
const timeOf = (typed: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(typed.trim()) ? `${typed.trim()}T00:00:00Z` : typed.trim()

/** The rows as the search's `filter` (rows without a key are left out; the service checks the rest). */
export const filterOf = (rows: FilterRow[]): Filter | undefined => {
  const filter: Record<string, Record<string, unknown>> = {}
  const metadata: Record<string, Record<string, unknown>> = {}
  for (const { key, op, value } of rows.filter((r) => r.key.trim())) {
    const name = key.trim()
    if ((TIMES as readonly string[]).includes(name)) {
      filter[name] = { ...filter[name], [op]: timeOf(value) }
      continue
    }
    const operand =
      op === 'exists' || op === 'missing'
        ? { exists: op === 'exists' }
        : { [op]: op === 'in' ? value.split(',').map(valueOf) : valueOf(value) }
    metadata[name] = { ...metadata[name], ...operand }
  }
  if (Object.keys(metadata).length > 0) filter.metadata = metadata
  return Object.keys(filter).length > 0 ? (filter as Filter) : undefined
}

/** The filter rows, each editable and removable, and a button adding one. */
export const RetrievalFilters = ({ rows, onChange }: { rows: FilterRow[]; onChange: (rows: FilterRow[]) => void }) => {
  const set = (i: number, row: Partial<FilterRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...row } : r)))
  return (
    <Stack gap={4} mt="xs" aria-label="Filters">
      {rows.length > 0 && (
        <Text size="sm" fw={500}>
          Filters (every one must hold)
        </Text>
      )}
      {rows.map((r, i) => {
        const time = (TIMES as readonly string[]).includes(r.key.trim())
        const ops = (Object.keys(OPERATORS) as Operator[]).filter((op) => !time || BOUNDS.includes(op))
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own but their place
          <Group gap={4} key={i} data-testid="filter" wrap="nowrap">
            <TextInput
              aria-label={`Filter ${i + 1} key`}
              placeholder="metadata key, createdAt or updatedAt"
              value={r.key}
              onChange={(e) => {
                const key = e.currentTarget.value
                const isTime = (TIMES as readonly string[]).includes(key.trim())
                set(i, { key, ...(isTime && !BOUNDS.includes(r.op) ? { op: 'gte' } : {}) })
              }}
              w={240}
            />
            <NativeSelect
              aria-label={`Filter ${i + 1} operator`}
              data={ops.map((op) => ({ value: op, label: OPERATORS[op] }))}
              value={r.op}
              onChange={(e) => set(i, { op: e.currentTarget.value as Operator })}
              w={110}
            />
            {r.op !== 'exists' && r.op !== 'missing' && (
              <TextInput
                aria-label={`Filter ${i + 1} value`}
                placeholder={time ? '2026-01-31' : r.op === 'in' ? 'draft, final' : 'a value, a number, true'}
                value={r.value}
                onChange={(e) => set(i, { value: e.currentTarget.value })}
                w={200}
              />
            )}
            <Button
              variant="subtle"
              color="gray"
              aria-label={`Remove filter ${i + 1}`}
              onClick={() => onChange(rows.filter((_, j) => j !== i))}
            >
              ×
            </Button>
          </Group>
        )
      })}
      <Group>
        <Button size="compact-sm" variant="light" onClick={() => onChange([...rows, { key: '', op: 'eq', value: '' }])}>
          Add filter
        </Button>
      </Group>
    </Stack>
  )
}
