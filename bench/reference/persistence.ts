// The persistence benchmark (bench/persistence.py) against the TypeScript original's own JSONL and
// SQLite backends. This file is ours; the original is loaded at run time from a checkout the user
// gives (toninfo/deepseek-harness at 3fe196a751), its TypeScript sources run as they are (Node 22
// or later: the SQLite backend needs node:sqlite):
//
//   node --experimental-transform-types bench/reference/persistence.ts CHECKOUT DEPS jsonl|sqlite INPUT WORKDIR [BATCH]
//
// DEPS is a directory whose node_modules holds the original's npm dependencies (cordis,
// schemastery). INPUT is a session log as JSONL (a header line, then one event per line), as
// bench/persistence.py writes it. Each backend is a plugin in a cordis Context of its own with the
// original's SessionStore, as the conformance adapter's `persist.open` loads it. The events are
// written to a fresh store under WORKDIR (which must be empty) in batches of BATCH events
// (default 13: one W1 turn) through the backend's `append`, then loaded by a fresh instance.
// Prints one JSON line: seconds, process CPU seconds (every thread; waiting for fsync is not CPU),
// bytes stored, and the SHA-256 of the loaded events' JSONL (each JSON.stringify(event) + "\n"),
// which equals the input's when the load gave back what was written.
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { register } from 'node:module'
import { join, resolve } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

const [checkout, deps, kind, input, workdir, batchArg] = process.argv.slice(2)
const batch = batchArg === undefined ? 13 : Number(batchArg)
if (!checkout || !deps || (kind !== 'jsonl' && kind !== 'sqlite') || !input || !workdir || !(batch > 0)) {
  console.error('usage: node --experimental-transform-types persistence.ts CHECKOUT DEPS jsonl|sqlite INPUT WORKDIR [BATCH]')
  process.exit(2)
}
if (readdirSync(workdir).length > 0) {
  console.error(`${workdir} is not empty`)
  process.exit(2)
}
const HOOKS = new URL('../../conformance/adapters/typescript-reference/hooks.mjs', import.meta.url)
register(HOOKS, { data: { checkout: resolve(checkout), deps: resolve(deps) } })
const { SessionStore } = await import('@deepseek-ai/dsh-session')
const { Context } = await import('cordis')
const { SessionPersistenceJsonl } = await import('@deepseek-ai/dsh-session-persistence-jsonl')
const { SessionPersistenceSqlite } = await import('@deepseek-ai/dsh-session-persistence-sqlite')

setFlagsFromString('--expose-gc') // for the memory figure only, after the timed parts
const collect = runInNewContext('gc') as () => void

type Json = any
const now = () => process.hrtime.bigint()
const cpuSeconds = (since: NodeJS.CpuUsage) => { const u = process.cpuUsage(since); return (u.user + u.system) / 1e6 }
const seconds = (since: bigint) => Number(now() - since) / 1e9

/** The JSONL text of `events` (one JSON.stringify per line) and its SHA-256. */
function digest(events: readonly Json[]): string {
  const hash = createHash('sha256')
  for (const event of events) hash.update(JSON.stringify(event) + '\n', 'utf8')
  return hash.digest('hex')
}

function storedBytes(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    total += entry.isDirectory() ? storedBytes(path) : statSync(path).size
  }
  return total
}

/** The backend as a plugin in a Context of its own, with the store it needs. */
async function open(): Promise<{ ctx: Json, service: Json }> {
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  if (kind === 'jsonl') await ctx.plugin(SessionPersistenceJsonl, { root: join(workdir, 'root') })
  else await ctx.plugin(SessionPersistenceSqlite, { path: join(workdir, 'sessions.db') })
  const service = ctx.sessionPersistence
  if (service === undefined) throw new Error(`the ${kind} backend did not load`)
  if (kind === 'sqlite') await service.ready
  return { ctx, service }
}

// The input, checked to be what JSON.stringify writes back byte for byte.
const lines = readFileSync(input, 'utf8').split('\n')
if (lines.at(-1) === '') lines.pop()
const { type: _type, ...meta } = JSON.parse(lines[0]!)
let events: Json[] | undefined = lines.slice(1).map(line => JSON.parse(line))
const identical = events.every((event, i) => JSON.stringify(event) === lines[i + 1])
const inputSha256 = createHash('sha256').update(lines.slice(1).map(line => line + '\n').join(''), 'utf8').digest('hex')
lines.length = 0

const writer = await open()
await writer.service.create(meta)
let wall = now(), cpu = process.cpuUsage()
for (let start = 0; start < events.length; start += batch) {
  await writer.service.append(meta.id, events.slice(start, start + batch))
}
const write = { s: seconds(wall), cpu: cpuSeconds(cpu) }
await writer.service.close?.()
const count = events.length
events = undefined
const bytes = storedBytes(workdir)
collect()

const heapBefore = process.memoryUsage().heapUsed
wall = now(); cpu = process.cpuUsage()
const reader = await open()
const loaded = await reader.service.load(meta.id)
const load = { s: seconds(wall), cpu: cpuSeconds(cpu) }
collect()
const heapHeld = process.memoryUsage().heapUsed - heapBefore
if (loaded.events.length !== count) throw new Error(`loaded ${loaded.events.length} events of ${count}`)

console.log(JSON.stringify({
  target: 'original', backend: kind, events: count, batch, bytes,
  write_s: write.s, write_cpu_s: write.cpu, load_s: load.s, load_cpu_s: load.cpu,
  load_heap_bytes_per_event: Math.round(heapHeld / count),
  input_identical: identical, input_sha256: inputSha256, loaded_sha256: digest(loaded.events),
}))
await reader.service.close?.()
process.exit(0)
