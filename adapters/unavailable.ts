/**
 * A dependency outside the database (Elasticsearch) that cannot be reached now: what waits for it
 * (a projector) tries again later instead of stopping for good.
 */
export class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: string,
    readonly reason: string,
  ) {
    super(`${dependency} is unreachable: ${reason}`)
    this.name = 'DependencyUnavailable'
  }
}
