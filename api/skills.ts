import * as t from 'io-ts'

// The five skills, served to every MCP client as prompts. An agent names the skill it
// writes under (the `skill` argument of page_write); the version's author keeps it.

export interface Skill {
  name: string
  description: string
  arguments: { name: string; description: string; required?: boolean }[]
  text(args: Record<string, string | undefined>): string
}

export const skills: Skill[] = [
  {
    name: 'docs-as-you-go',
    description: 'Write up each unit of work in the brain as soon as it is finished',
    arguments: [{ name: 'topic', description: 'The work just finished (a feature, a fix, an investigation)' }],
    text: (a) => `You have just finished a unit of work: ${a.topic?.trim() || 'the task at hand'}.
Before moving on, record it in the brain with the page_write tool (skill "docs-as-you-go"):
1. Search first (page_search) for a page that already covers this area; prefer appending to it
   (mode "append") over creating a near-duplicate.
2. Write what changed, why, how it was verified, and anything a teammate must know next time
   (commands, gotchas, links). Use Markdown headings and short lists.
3. If you replace a page's content (mode "replace"), pass the expectedVersion you read; on
   VERSION_CONFLICT read the page again and re-apply your change.
4. Quote the receipt you get back (page and version) in your reply; its undo call (page_revert or
   page_delete) takes the write back if the user asks.`,
  },
  {
    name: 'brain-first',
    description: 'Search the brain before answering, and cite the pages used',
    arguments: [{ name: 'question', description: 'The question to answer', required: true }],
    text: (a) => `Question: ${a.question ?? ''}
Before answering from memory, search the brain: call page_search with the key terms of the question
(and kb_search for uploaded reference documents).
Read the most relevant pages (page_read) when a snippet is not enough.
Answer from what you found, and cite each page you relied on exactly as its result's citation reads
("<title> · v<version>").
If the brain has nothing relevant, say so plainly before answering from general knowledge, and offer
to record the answer with page_write.`,
  },
  {
    name: 'session-recall',
    description: 'At the start of a session, read what past sessions recorded',
    arguments: [{ name: 'project', description: 'The project or area this session works on' }],
    text: (a) => `A new session is starting on ${a.project?.trim() || 'this project'}.
Before doing anything else, recall what earlier sessions left behind:
1. page_search for the project name, "session notes", "decision log" and "open questions".
2. page_read the most recent of those pages; note open tasks, decisions already made and known pitfalls.
3. Summarise in three to six bullets what you now know and what you will do first, citing the pages
   ("<title> · v<version>").
Do not redo work a page records as done without checking why.`,
  },
  {
    name: 'decision-log',
    description: 'Record decisions and their reasons when they are made',
    arguments: [
      { name: 'decision', description: 'The decision just made', required: true },
      { name: 'log', description: 'Title of the decision log page (default "Decision log")' },
    ],
    text: (a) => `A decision was just made: ${a.decision ?? ''}
Record it now with page_write, mode "append", title "${a.log?.trim() || 'Decision log'}",
skill "decision-log". Write one entry:
### <date> <one-line decision>
- Context: what forced the choice.
- Options considered: each with its main trade-off.
- Decision and reason.
- Consequences and what would make us revisit it.
Keep earlier entries untouched; append only.`,
  },
  {
    name: 'meeting-notes',
    description: 'File meeting outcomes to project pages and decisions to the log',
    arguments: [
      { name: 'meeting', description: 'What the meeting was about', required: true },
      { name: 'notes', description: 'Raw notes or transcript of the meeting' },
    ],
    text: (a) => `Meeting: ${a.meeting ?? ''}
${a.notes ? `Notes:\n${a.notes}\n` : ''}File its outcomes in the brain (skill "meeting-notes"):
1. For each project discussed, append the outcomes, owners and dates to that project's page
   (page_search to find it; page_write mode "append").
2. Append each decision, with its reason, to the "Decision log" page.
3. Do not paste the raw transcript; write what a teammate who missed the meeting needs.
Report the receipts (page and version) of every write.`,
  },
]

/** A skill name, as the `skill` argument of a write. */
export const SkillName = t.keyof(
  Object.fromEntries(skills.map((s) => [s.name, null])) as Record<string, null>,
  `one of the skills ${skills.map((s) => s.name).join(', ')}`,
)
