/** The file types the service reads, by MIME type, with the names people know them by. */
export const FILE_TYPES: Record<string, string> = {
  'application/pdf': 'PDF',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'DOCX',
  'text/html': 'HTML',
  'text/markdown': 'Markdown',
  'text/plain': 'text',
  'image/png': 'PNG image (OCR)',
  'image/jpeg': 'JPEG image (OCR)',
  'image/tiff': 'TIFF image (OCR)',
}

/** Allowed file types in words ("PDF, HTML, Markdown, text"). */
export const typeNames = (types: string[]) => types.map((m) => FILE_TYPES[m] ?? m).join(', ')
