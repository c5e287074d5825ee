import * as t from 'io-ts'

// The five skills, served to every MCP client as prompts. An agent names the skill it
// writes under (the `skill` argument of page_write); the version's author keeps it.

export interface Skill {
  name: string
  description: string
  arguments: { name: string; description: string; required?: boolean }[]
  text(args: Record<string, string | undefined>): string
}

/** What every writing skill tells the agent about citing and about writes held for review. */
const CITE = 'Cite pages exactly as their citation reads ("<title> · v<version>"), entries by their citation.'
const HELD =
  'If page_write answers held: true, the collection holds agent writes for review: your change is a proposal, ' +
  'the page is unchanged; do not write it again, tell the user, and follow it with kb_proposal_status.'
const UNDO = 'Each receipt names its undo (page_revert or page_delete): run it if the user asks to take a write back.'

export const skills: Skill[] = [
  {
    name: 'docs-as-you-go',
    description: 'Write up each unit of work in the brain as soon as it is finished',
    arguments: [{ name: 'topic', description: 'The work just finished (a feature, a fix, an investigation)' }],
    text: (a) => `You have just finished a unit of work: ${a.topic?.trim() || 'the task at hand'}.
Record it in the brain now (skill "docs-as-you-go"):
1. page_search for a page that already covers this area (its key terms).
2. If one does, page_read it, then page_write mode "append" with its pageId; replace only with the
   expectedVersion you read (on VERSION_CONFLICT read it again and re-apply your change).
   If none does, page_write mode "create" with a clear title.
3. Write what changed, why, how it was verified, and what a teammate must know next time (commands,
   gotchas, links), as Markdown headings and short lists. Where you relied on a page or an entry,
   say so in the text. ${CITE}
4. Quote the receipt (page and version) in your reply.
${HELD}
${UNDO}`,
  },
  {
    name: 'brain-first',
    description: 'Search the brain before answering, and cite the pages used',
    arguments: [{ name: 'question', description: 'The question to answer', required: true }],
    text: (a) => `Question: ${a.question ?? ''}
Before answering from memory:
1. page_search with the key terms of the question; kb_search too for uploaded reference documents.
2. page_read (or kb_get_entry) the best results when their highlights are not enough; read a section
   or a range of a long one.
3. Answer from what you found. ${CITE}
4. If nothing relevant was found, say so plainly before answering from general knowledge, and offer
   to record the answer with page_write.`,
  },
  {
    name: 'session-recall',
    description: 'At the start of a session, read what past sessions recorded',
    arguments: [{ name: 'project', description: 'The project or area this session works on' }],
    text: (a) => `A new session is starting on ${a.project?.trim() || 'this project'}.
Before doing anything else, recall what earlier sessions left behind:
1. page_search for the project name, "session notes", "decision log" and "open questions".
2. page_read the most recent of those pages; page_history shows what changed since you last read.
3. Summarise in three to six bullets what you now know and what you will do first. ${CITE}
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
skill "decision-log" (append creates the page if it is missing). Write one entry:
### <date> <one-line decision>
- Context: what forced the choice.
- Options considered: each with its main trade-off.
- Decision and reason.
- Consequences and what would make us revisit it.
- Sources: the pages and entries the decision rests on. ${CITE}
Keep earlier entries untouched; append only. Quote the receipt in your reply.
${HELD}`,
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
1. For each project discussed, page_search for its page, then page_write mode "append" with the
   outcomes, owners and dates (create the page if there is none).
2. page_write mode "append" each decision, with its reason, to the "Decision log" page.
3. Do not paste the raw transcript; write what a teammate who missed the meeting needs. Where an
   outcome rests on a page or an entry discussed, cite it. ${CITE}
Report the receipts (page and version) of every write.
${HELD}`,
  },
]

/** A skill name, as the `skill` argument of a write. */
export const SkillName = t.keyof(
  Object.fromEntries(skills.map((s) => [s.name, null])) as Record<string, null>,
  `one of the skills ${skills.map((s) => s.name).join(', ')}`,
)
