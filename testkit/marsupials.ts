// A newcomer's workspace, shared by the search tests and scripts/eval/notes.ts: eight one-line notes on
// marsupials, and a long document beside them on the same topic.

export const MARSUPIAL_NOTES: Record<string, string> = {
  Quokkas: 'Quokkas are small wallabies that live on Rottnest Island, off Perth.',
  Wombats: 'Wombats are burrowing marsupials whose droppings are cube shaped.',
  Devils: 'Tasmanian devils are marsupials with the strongest bite for their size of any mammal.',
  Koalas: 'Koalas are marsupials that eat eucalyptus leaves and sleep most of the day.',
  Numbats: 'Numbats are marsupials that eat termites, up to twenty thousand a day.',
  Bilbies: 'Bilbies are desert marsupials with long ears that dig burrows.',
  Kangaroos: 'Kangaroos are the largest marsupials and move by hopping.',
  Possums: 'Possums are tree-dwelling marsupials found across Australia.',
}

export const MARSUPIAL_NAMES = [
  'quokka',
  'wombat',
  'devil',
  'koala',
  'numbat',
  'bilby',
  'kangaroo',
  'possum',
  'marsupial',
]

/**
 * 1,200 lines of marsupial names in a question's own words: about 600 passages, each nearer to the
 * question than any note, as in a manual that lists names page after page.
 */
export const nameList = (question = 'Which marsupial has the strongest bite') =>
  Array.from({ length: 1200 }, (_, i) => {
    const n = MARSUPIAL_NAMES
    return `${question}: ${n[i % 9]}, ${n[(i + 4) % 9]} or ${n[(i + 7) % 9]}?`
  }).join('\n')
