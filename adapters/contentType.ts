/** A Content-Type header's media type (lower case) and its charset parameter, when it names one. */
export const parseContentType = (value: string) => {
  const [type, ...params] = value.split(';')
  const charset = params.map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(p)?.[1]).find(Boolean)
  return { type: type.trim().toLowerCase(), ...(charset ? { charset } : {}) }
}
