/** The pagination object of every list. */
export const pagination = (page: number, limit: number, total: number) => {
  const totalPages = Math.ceil(total / limit)
  return { page, limit, total, totalPages, hasNext: page < totalPages, hasPrev: page > 1 }
}
