// The conformance adapter for the TypeScript original (toninfo/deepseek-harness at 3fe196a751).
//
// Our own code: it speaks the suite's JSON-lines protocol (conformance/README.md) and carries each
// operation out with the original's public API only -- Session and SessionStore, the JSONL and
// SQLite persistence plugins, the invariants plugin, the agent loop's header writer -- loaded
// from a checkout the user gives:
//
//   node --experimental-transform-types adapter.ts CHECKOUT [DEPS_DIR]
//
// Node 22 or later (node:sqlite, type stripping). DEPS_DIR holds the original's npm dependencies
// (cordis, schemastery: `npm install` in this directory puts them here, the default).
// The original's errors are plain Error objects; ERRORS maps their messages onto registry codes.
import { register } from 'node:module'
import { createInterface } from 'node:readline'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const [checkout, depsDir] = [process.argv[2], process.argv[3] ?? dirname(fileURLToPath(import.meta.url))]
if (!checkout) {
  process.stderr.write('usage: node --experimental-transform-types adapter.ts CHECKOUT [DEPS_DIR]\n')
  process.exit(2)
}
register('./hooks.mjs', import.meta.url, { data: { checkout, deps: depsDir } })

const session = await import('@deepseek-ai/dsh-session')
const { Context } = await import('cordis')
const { SessionPersistenceJsonl } = await import('@deepseek-ai/dsh-session-persistence-jsonl')
const { SessionPersistenceSqlite } = await import('@deepseek-ai/dsh-session-persistence-sqlite')
const invariants = await import('@deepseek-ai/dsh-invariants')
// The header writer is the agent loop's; its package exports the module by path (`./src/*`).
const { recordRequestHeader } = await import('@deepseek-ai/dsh-agent-loop/src/request-log.ts')
const { Session, SessionStore, SessionForkError, interruptedTurnClosers, isToolPairingBalanced } = session
const { applyHeaderDelta, diffHeader, headerEquals, isJsonValue, isSurfaceEligibleType } = session

function uncoded(error: unknown): never {
  throw classify(error)
}

const PROTOCOL = 2
const DIALECT = '3fe196a751'
// What the original has. Not here: a memory or PostgreSQL backend (its memory backend lives in its
// tests), copying stores, a coordinator that writes by itself or reports what it wrote or refused,
// reporting observer failures, the region check (compaction's).
const FEATURES = [
  'backend.jsonl', 'backend.sqlite', 'coordinator', 'agent-status', 'request-check', 'store.remove',
  'header.writer',
]

type Json = any
class Unsupported extends Error {}
class Coded extends Error {
  constructor(public code: string | null, message: string) { super(message) }
}

// -- the clock: every operation's `time` ----------------------------------------------------
let now = 0
Date.now = () => now

// -- error messages of the original -> registry codes ----------------------------------------
const ERRORS: [RegExp, string][] = [
  [/non-JSON-serializable/, 'NON_JSON_DATA'],
  [/corrupt session log|header-less session log|not a session header/, 'STORE_CORRUPT'],
  [/seed must be contiguous|append seq mismatch/, 'SEQ_NOT_CONTIGUOUS'],
  [/requires a surfaceOp marker|carries no surfaceOp marker/, 'MISSING_SURFACE_OP'],
  [/start seq \S+ (not found in surface|is not on the surface)/, 'REPLACE_START_NOT_ON_SURFACE'],
  [/end seq \S+ (not found in surface|is not on the surface)/, 'REPLACE_END_NOT_ON_SURFACE'],
  [/is after end seq/, 'REPLACE_RANGE_REVERSED'],
  [/must include every shadowed surface node/, 'REPLACE_PROVENANCE_INCOMPLETE'],
  [/seq must strictly increase/, 'SEQ_NOT_INCREASING'],
  [/cannot carry sourceEventSeqs/, 'PROVENANCE_ON_LOG_ONLY_TYPE'],
  [/cannot carry surfaceOp/, 'SURFACE_OP_ON_LOG_ONLY_TYPE'],
  [/sourceEventSeqs must not be empty/, 'PROVENANCE_EMPTY'],
  [/sourceEventSeqs must not contain duplicates/, 'PROVENANCE_DUPLICATE'],
  [/sourceEventSeqs must reference earlier events/, 'PROVENANCE_NOT_EARLIER'],
  [/sourceEventSeqs references unknown seq/, 'PROVENANCE_UNKNOWN_SEQ'],
  [/turn\/start \S+ while turn \S+ is still open/, 'TURN_ALREADY_OPEN'],
  [/turn\/start expected turn/, 'TURN_OUT_OF_ORDER'],
  [/turn\/end \S+ does not match open turn/, 'TURN_END_MISMATCH'],
  [/turn\/end \S+ while step \S+ is still open/, 'TURN_END_STEP_OPEN'],
  [/step\/start in turn \S+ but open turn is/, 'STEP_TURN_MISMATCH'],
  [/step\/start \S+ while step \S+ is still open/, 'STEP_ALREADY_OPEN'],
  [/step\/start expected step/, 'STEP_OUT_OF_ORDER'],
  [/with no prior tool\/call/, 'TOOL_RESULT_UNPAIRED'],
  [/outside any open turn/, 'EVENT_OUTSIDE_TURN'],
  [/names turn .* but open is turn/, 'STEP_NOT_OPEN'],
  [/observer told to fail/, 'OBSERVER_FAILED'],
  [/agent\/status repeated/, 'STATUS_REPEATED'],
  [/left terminal state disposed/, 'STATUS_LEFT_DISPOSED'],
  [/no step\/start in its session log/, 'REQUEST_STEP_START_MISSING'],
  [/no request\/header event in its session log/, 'REQUEST_HEADER_MISSING'],
  [/diverges from the boundary derivation/, 'REQUEST_MESSAGES_MISMATCH'],
  [/diverges from the folded request header/, 'REQUEST_HEADER_MISMATCH'],
  [/before any request\/header snapshot/, 'HEADER_DELTA_BEFORE_SNAPSHOT'],
  [/has no matching tool-call \(corrupt surface\)/, 'TOOL_PAIRING_CORRUPT'],
  [/cwd must be an absolute path/, 'CWD_NOT_ABSOLUTE'],
  [/at a different cwd .*\(id collision\)/, 'ID_COLLISION_CWD'],
  [/\(id collision\)/, 'ID_COLLISION_LOG'],
  [/already exists|already has a persisted log|a log already exists/, 'SESSION_ALREADY_EXISTS'],
  [/not found/, 'SESSION_NOT_FOUND'],
  [/unsupported session format version/, 'STORE_VERSION_UNSUPPORTED'],
  [/schema version|incompatible with this build/, 'STORE_SCHEMA_MISMATCH'],
]

function classify(error: unknown): Coded {
  if (error instanceof Coded) return error
  // The coordinator's flush reports every failing listener together.
  if (error instanceof AggregateError && error.errors.length > 0) return classify(error.errors[0])
  if (error instanceof SessionForkError) return new Coded(error.code, error.message)
  const message = error instanceof Error ? error.message : String(error)
  if (error instanceof SyntaxError) return new Coded('STORE_CORRUPT', message)
  for (const [pattern, code] of ERRORS) if (pattern.test(message)) return new Coded(code, message)
  return new Coded(null, `${error instanceof Error ? error.name : 'error'}: ${message}`)
}

// -- JSON in, native values out -------------------------------------------------------------
function decode(value: Json): Json {
  if (Array.isArray(value)) return value.map(decode)
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value)
    if (keys.length === 1 && keys[0] === '$nonjson') return nonjson(value.$nonjson)
    return Object.fromEntries(keys.map(key => [key, decode(value[key])]))
  }
  return value
}

function nonjson(kind: string): Json {
  if (kind === 'nan') return NaN
  if (kind === 'infinity') return Infinity
  if (kind === '-infinity') return -Infinity
  if (kind === 'cycle') { const loop: Json[] = []; loop.push(loop); return loop }
  if (kind.startsWith('integer:')) return BigInt(kind.slice('integer:'.length))
  throw new Unsupported(`unknown $nonjson kind ${kind}`)
}

const plain = (value: Json): Json => value === undefined ? null : JSON.parse(JSON.stringify(value))

// -- handles ----------------------------------------------------------------------------------
interface StoreState { ctx: any, store: any, fiber: any }
interface BackendState { kind: string, config: Json, ctx: any, service: any }
interface CoordState { ctx: any, service: any }
let sessions = new Map<string, any>()
let stores = new Map<string, StoreState>()
let backends = new Map<string, BackendState>()
let coordinators = new Map<string, CoordState>()
let observers = new Map<string, Json[]>()
let agents = new Map<string, { ctx: any, agent: object }>()
let contexts: any[] = []
// How each session leaves its store: the fiber that created it (disposing it detaches the session,
// the original's lifecycle for create), or the detach that enter returned.
let leave = new Map<any, () => unknown>()

/** Run ``make`` in a fiber of its own under ``ctx``, as a caller of create does; its dispose detaches. */
async function owned<T>(ctx: any, make: (sub: any) => T): Promise<T> {
  let made: { value?: T, error?: unknown } = {}
  const fiber = ctx.plugin({
    name: 'conformance-owner',
    inject: ['sessions'],
    apply(sub: any) { try { made = { value: make(sub) } } catch (error) { made = { error } } },
  })
  await fiber
  if ('error' in made) { await fiber.dispose(); throw made.error }
  leave.set(made.value, () => fiber.dispose())
  return made.value as T
}

function named<T>(table: Map<string, T>, key: string | undefined, fallback: string, kind: string): T {
  const found = table.get(key ?? fallback)
  if (found === undefined) throw new Unsupported(`no ${kind} named ${key ?? fallback}`)
  return found
}

async function context(withInvariants = false): Promise<any> {
  const ctx = new Context()
  contexts.push(ctx)
  await ctx.plugin(SessionStore)
  if (withInvariants) await ctx.plugin(invariants, { freeze: false })
  return ctx
}

async function storeOf(name: string | undefined): Promise<StoreState> {
  const key = name ?? 'main'
  let state = stores.get(key)
  if (state === undefined) {
    const ctx = await context()
    state = { ctx, store: ctx.sessions, fiber: undefined }
    stores.set(key, state)
  }
  return state
}

async function loadBackend(ctx: any, kind: string, config: Json): Promise<any> {
  const plugin = kind === 'jsonl' ? SessionPersistenceJsonl : SessionPersistenceSqlite
  await ctx.plugin(plugin, config)
  const service = ctx.sessionPersistence
  if (service === undefined) throw new Coded(null, `the ${kind} backend did not load`)
  if (kind === 'sqlite') await service.ready
  return service
}

async function reset(): Promise<void> {
  for (const ctx of contexts.reverse()) {
    try { await ctx.registry?.delete?.(ctx.runtime?.plugin) } catch { /* closing what is left */ }
  }
  for (const backend of backends.values()) {
    try { if (backend.kind === 'sqlite') backend.service.db?.close?.() } catch { /* already closed */ }
  }
  sessions = new Map(); stores = new Map(); backends = new Map(); coordinators = new Map()
  observers = new Map(); agents = new Map(); contexts = []; leave = new Map()
}

// -- the operations ---------------------------------------------------------------------------
const event = (value: Json): Json => plain(value)
const header = (value: Json): Json => plain(value)

const OPS: Record<string, (args: Json) => Json | Promise<Json>> = {
  async 'session.new'(args) {
    const seed = args.seed ?? []
    const meta = { createdAt: args.createdAt ?? 0, ...args.cwd !== undefined ? { cwd: args.cwd } : {} }
    if (args.invariants === true) {
      // The invariants plugin checks a session when its store announces it, and each append.
      const ctx = await context(true)
      sessions.set(args.session ?? 's', ctx.sessions.create(args.id, { seed, meta }))
      return null
    }
    sessions.set(args.session ?? 's', new Session(args.id, seed, { version: 0, id: args.id, ...meta }))
    return null
  },
  'session.append'(args) {
    const s = named(sessions, args.session, 's', 'session')
    const opts: Json = {}
    if ('surfaceOp' in args) opts.surfaceOp = args.surfaceOp
    if ('sourceEventSeqs' in args) opts.sourceEventSeqs = args.sourceEventSeqs
    return event('surfaceOp' in args || 'sourceEventSeqs' in args ? s.append(args.type, args.data, opts) : s.append(args.type, args.data))
  },
  'session.events': args => plain(named(sessions, args.session, 's', 'session').events),
  'session.surface': args => plain(named(sessions, args.session, 's', 'session').surface.nodes),
  'session.generation': args => named(sessions, args.session, 's', 'session').surface.replaceGeneration,
  'session.invalidate': args => { named(sessions, args.session, 's', 'session').surface.invalidate(); return null },
  'session.messages': args => plain(named(sessions, args.session, 's', 'session').deriveMessages()),
  'session.event_message': (args) => {
    const s = named(sessions, args.session, 's', 'session')
    return plain(s.deriveEventMessage(s.events[args.seq]))
  },
  'session.closers': args => plain(interruptedTurnClosers(named(sessions, args.session, 's', 'session').events)),
  'session.request_header': args => plain(named(sessions, args.session, 's', 'session').requestHeader() ?? null),
  'session.balanced': (args) => {
    const s = named(sessions, args.session, 's', 'session')
    return isToolPairingBalanced(s.surface.nodes, s.events, args.before ?? null)
  },
  async 'log.check'(args) {
    // The original has no log checker: the invariants plugin checks each event its store
    // announces, and the session checks what it holds (C3, C4). So each record goes through the
    // plugin as an announced event of a fresh session, then the session's own rules; the first
    // broken rule stops it (one violation at most).
    const ctx = await context(true)
    const probe = ctx.sessions.create('log', {})
    for (const [index, record] of (args.records as Json[]).entries()) {
      try {
        ctx.emit('session/event', probe, record)
      } catch (error) {
        return [{ code: classify(error).code ?? uncoded(error), seq: record.seq }]
      }
      if (!isJsonValue(record.data)) return [{ code: 'NON_JSON_DATA', seq: record.seq }]
      if (isSurfaceEligibleType(record.type) && record.surfaceOp === undefined) {
        return [{ code: 'MISSING_SURFACE_OP', seq: record.seq }]
      }
      if (record.seq !== index) return [{ code: 'SEQ_NOT_CONTIGUOUS', seq: record.seq }]
    }
    return []
  },
  'header.equals': args => headerEquals(args.a, args.b),
  'header.diff': args => plain(diffHeader(args.prev, args.next) ?? null),
  'header.apply': args => plain(applyHeaderDelta(args.prev, args.delta)),
  'header.next_event'(args) {
    // The agent loop's writer logs into a session: one whose log folds to `prev` (a snapshot of
    // it, or nothing), and bookkeeping that says whether this loop instance has logged a header.
    const s = new Session('writer', [], { version: 0, id: 'writer', createdAt: 0 })
    if (args.prev !== null) s.append('request/header', { header: args.prev, reason: 'initial' })
    const before = s.events.length
    recordRequestHeader(s, { loggedHeader: args.firstRequest !== true }, args.next)
    const logged = s.events.slice(before)
    return logged.length === 0 ? null : { type: logged[0].type, data: plain(logged[0].data) }
  },
  async 'store.create'(args) {
    const { store } = await storeOf(args.store)
    const meta: Json = {}
    for (const key of ['cwd', 'parentSession', 'seedLength']) if (args[key] !== undefined) meta[key] = args[key]
    const { ctx } = await storeOf(args.store)
    const created = await owned(ctx, sub => sub.sessions.create(args.id, { ...args.seed !== undefined ? { seed: args.seed } : {}, meta }))
    await settle()
    sessions.set(args.session ?? 's', created)
    return header(created.header)
  },
  async 'store.fork'(args) {
    const { store } = await storeOf(args.store)
    const source = 'sourceSession' in args ? named(sessions, args.sourceSession, 's', 'session') : args.source
    const { ctx } = await storeOf(args.store)
    const child = await owned(ctx, sub => sub.sessions.fork(source, args.boundary ?? undefined, args.childId))
    await settle()
    sessions.set(args.session ?? 's', child)
    return header(child.header)
  },
  async 'store.enter'(args) {
    const { store } = await storeOf(args.store)
    const entered = named(sessions, args.session, 's', 'session')
    leave.set(entered, store.enter(entered))
    return null
  },
  async 'store.remove'(args) {
    // The original has no remove: a session leaves when its owner's fiber ends (create) or its
    // detach is called (enter). Answer whether it was the live one.
    const { store } = await storeOf(args.store)
    const s = named(sessions, args.session, 's', 'session')
    const wasLive = store.get(s.id) === s
    await leave.get(s)?.()
    return wasLive
  },
  async 'store.list'(args) { return (await storeOf(args.store)).store.list().map((s: any) => s.id) },
  async 'store.observe'(args) {
    const { ctx } = await storeOf(args.store)
    const heard: Json[] = []
    observers.set(args.observer ?? 'o', heard)
    ctx.on('session/created', (s: any) => {
      heard.push(['created', s.id])
      if (args.fail === 'created') throw new Error('observer told to fail on session/created')
    })
    ctx.on('session/event', (s: any, e: any) => {
      heard.push(['event', s.id, e.seq])
      if (args.fail === 'event') throw new Error('observer told to fail on session/event')
    })
    return null
  },
  'store.observed': args => named(observers, args.observer, 'o', 'observer'),
  async 'persist.open'(args) {
    if (args.kind !== 'jsonl' && args.kind !== 'sqlite') throw new Unsupported(`no ${args.kind} backend`)
    const config = args.kind === 'jsonl' ? { root: args.path } : { path: args.path }
    const ctx = await context()
    const service = await loadBackend(ctx, args.kind, config)
    backends.set(args.backend ?? 'db', { kind: args.kind, config, ctx, service })
    return null
  },
  async 'persist.create'(args) {
    await named(backends, args.backend, 'db', 'backend').service.create(args.header)
    return null
  },
  async 'persist.append'(args) {
    await named(backends, args.backend, 'db', 'backend').service.append(args.id, args.events)
    return null
  },
  async 'persist.load'(args) {
    const loaded = await named(backends, args.backend, 'db', 'backend').service.load(args.id)
    if ('session' in args) sessions.set(args.session, new Session(loaded.meta.id, loaded.events, loaded.meta))
    return { header: header(loaded.meta), events: plain(loaded.events) }
  },
  async 'persist.list'(args) {
    const listed = await named(backends, args.backend, 'db', 'backend').service.list()
    // The protocol asks for code-point order; JavaScript's sort compares UTF-16 code units.
    const key = (h: Json) => Array.from(String(h.id), c => c.codePointAt(0)!)
    return plain(listed).sort((a: Json, b: Json) => compare(key(a), key(b)))
  },
  async 'persist.close'(args) {
    const backend = named(backends, args.backend, 'db', 'backend')
    await backend.service.close?.()
    return null
  },
  async 'coord.attach'(args) {
    if ('flushOn' in args || 'maxPending' in args) throw new Unsupported('the coordinator has no flush policy')
    // The original's coordinator is part of each backend plugin: it keeps the sessions of the
    // store of the context it is loaded in. So: another instance of the backend, in the store's context.
    const state = await storeOf(args.store)
    const backend = named(backends, args.backend, 'db', 'backend')
    const service = await loadBackend(state.ctx, backend.kind, backend.config)
    await settle(service)
    coordinators.set(args.coordinator ?? 'c', { ctx: state.ctx, service })
    return null
  },
  async 'coord.flush'(args) {
    const coord = named(coordinators, args.coordinator, 'c', 'coordinator')
    const s = named(sessions, args.session, 's', 'session')
    await settle(coord.service)
    await coord.ctx.parallel('session/flush', s)
    return null
  },
  async 'coord.flush_all'(args) {
    const coord = named(coordinators, args.coordinator, 'c', 'coordinator')
    await settle(coord.service)
    for (const s of coord.ctx.sessions.list()) await coord.ctx.parallel('session/flush', s)
    return null
  },
  async 'coord.load'(args) {
    const coord = named(coordinators, args.coordinator, 'c', 'coordinator')
    const loaded = await coord.service.load(args.id)
    return { header: header(loaded.meta), events: plain(loaded.events) }
  },
  async 'coord.resume'(args) {
    const coord = named(coordinators, args.coordinator, 'c', 'coordinator')
    const loaded = await coord.service.load(args.id)
    const meta = loaded.meta
    const resumed = await owned(coord.ctx, sub => sub.sessions.create(args.id, {
      seed: loaded.events,
      meta: { createdAt: meta.createdAt, ...['cwd', 'parentSession', 'seedLength'].reduce((out: Json, key) =>
        meta[key] !== undefined ? { ...out, [key]: meta[key] } : out, {}) },
    }))
    await settle(coord.service)
    sessions.set(args.session ?? 's', resumed)
    return header(resumed.header)
  },
  async 'coord.close'(args) {
    const coord = named(coordinators, args.coordinator, 'c', 'coordinator')
    await settle(coord.service)
    for (const s of coord.ctx.sessions.list()) await coord.ctx.parallel('session/flush', s)
    await coord.service.close?.()
    coordinators.delete(args.coordinator ?? 'c')
    return null
  },
  async 'agent.status'(args) {
    const name = args.agent ?? 'a'
    let state = agents.get(name)
    if (state === undefined) {
      state = { ctx: await context(true), agent: { name } }
      agents.set(name, state)
    }
    state.ctx.emit('agent/status', state.agent, args.status)
    return null
  },
  async 'request.check'(args) {
    const s = named(sessions, args.session, 's', 'session')
    const ctx = await context(true)
    // The plugin checks a loop-built request: frozen options naming a live session of its store,
    // with a frozen message array, as they pass through the llm/stream waterfall.
    const live = ctx.sessions.create(s.id, { seed: plain(s.events), meta: { createdAt: 0 } })
    const request = { ...args.request, sessionId: live.id }
    if (request.messages !== undefined) Object.freeze(request.messages)
    await ctx.waterfall(ctx, 'llm/stream', Object.freeze(request), () => (async function* () {})())
    return null
  },
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}

/** Wait for the coordinator's asynchronous work (binding sessions) to finish: an answer means done. */
async function settle(service?: any): Promise<void> {
  for (let round = 0; round < 3; round++) {
    await new Promise(resolve => setImmediate(resolve))
    const pending = service?.inits ? [...service.inits.values()] : []
    for (const coord of coordinators.values()) pending.push(...(coord.service.inits?.values() ?? []))
    await Promise.allSettled(pending)
  }
}

// -- the loop -----------------------------------------------------------------------------------
async function answer(op: string, args: Json): Promise<Json> {
  if (op === 'hello') {
    return { ok: { protocol: PROTOCOL, implementation: { name: 'deepseek-harness', version: DIALECT, language: 'typescript' }, dialect: DIALECT, features: FEATURES } }
  }
  if (op === 'reset') { await reset(); return { ok: null } }
  if (op === 'bye') return { ok: null }
  const run = OPS[op]
  if (run === undefined) return { unsupported: `operation ${op} is not in the original's public API` }
  try {
    if (typeof args.time === 'number') now = args.time
    const value = await run(decode(args))
    await settle()
    return { ok: value === undefined ? null : value }
  } catch (error) {
    if (error instanceof Unsupported) return { unsupported: error.message }
    const coded = classify(error)
    return { error: { code: coded.code, message: coded.message } }
  }
}

const lines = createInterface({ input: process.stdin })
for await (const line of lines) {
  if (!line.trim()) continue
  const request = JSON.parse(line)
  const reply = await answer(request.op, request.args ?? {})
  process.stdout.write(JSON.stringify({ id: request.id, ...reply }) + '\n')
  if (request.op === 'bye') process.exit(0)
}
