// W1 (bench/workload-w1.md) against the TypeScript original's Session, timed as
// bench/workload.py times the implementation. This file is ours; the original is loaded at run
// time from a checkout the user gives (toninfo/deepseek-harness at 3fe196a751), its TypeScript
// sources run as they are (Node 22 or later):
//
//   node --experimental-transform-types bench/reference/w1.ts CHECKOUT DEPS T plain|compact
//
// DEPS is a directory whose node_modules holds the original's npm dependencies (cordis,
// schemastery). Package names resolve through the conformance adapter's hooks.mjs.
// Prints one JSON line (seconds; digests as in W1).
import { createHash } from 'node:crypto'
import { register } from 'node:module'
import { resolve } from 'node:path'

const [checkout, deps, turnsArg, modeArg] = process.argv.slice(2)
if (!checkout || !deps || !(Number(turnsArg) > 0) || (modeArg !== 'plain' && modeArg !== 'compact')) {
  console.error('usage: node --experimental-transform-types w1.ts CHECKOUT DEPS T plain|compact')
  process.exit(2)
}
const HOOKS = new URL('../../conformance/adapters/typescript-reference/hooks.mjs', import.meta.url)
register(HOOKS, { data: { checkout: resolve(checkout), deps: resolve(deps) } })
const { Session } = await import('@deepseek-ai/dsh-session')

type Step = [string, any, any?, number[]?]

function turnSteps(t: number): Step[] {
  const call = `call-${t}`
  const chunks: Step[] = [0, 1, 2, 3, 4].map(k => ['assistant/chunk', { turn: t, step: 1, chunk: { type: 'text-delta', index: 0, text: `chunk ${k} ` } }])
  return [
    ['turn/start', { turn: t, trigger: { kind: 'message', source: { kind: 'user' } } }],
    ['user/message', { content: [{ type: 'text', text: `user message ${t}` }], source: { kind: 'user' } }, 'append'],
    ['step/start', { turn: t, step: 1 }],
    ...chunks,
    ['assistant/message', { turn: t, step: 1, content: [{ type: 'text', text: `assistant reply ${t}` }, { type: 'tool-call', id: call, name: 'echo', arguments: '{"x":1}' }] }, 'append', [3, 4, 5, 6, 7]],
    ['tool/call', { turn: t, step: 1, callId: call, name: 'echo', arguments: '{"x":1}' }],
    ['tool/result', { turn: t, step: 1, callId: call, content: [{ type: 'text', text: `result ${t}` }], isError: false }, 'append', [9]],
    ['step/end', { turn: t, step: 1 }],
    ['turn/end', { turn: t, reason: { kind: 'completed' } }],
  ]
}

// W1 derives right after step 8 (the assistant message); a compaction comes before step 12 (turn/end).
const DERIVE_AFTER = 8, COMPACT_BEFORE = 12
const sha = (v: unknown) => createHash('sha256').update(JSON.stringify(v), 'utf8').digest('hex')
const now = () => process.hrtime.bigint()

function run(turns: number, mode: string) {
  const s: any = new Session('w1' as any)
  const append = (kind: string, data: any, op: any, refs: number[] | undefined) => {
    const opts: any = op === undefined ? undefined : (refs === undefined ? { surfaceOp: op } : { surfaceOp: op, sourceEventSeqs: refs })
    return (opts === undefined ? s.append(kind, data) : s.append(kind, data, opts)).seq as number
  }
  let appendNs = 0n, deriveNs = 0n, compactNs = 0n, totalNs = 0n, compactions = 0
  const runs: [number, number | undefined][] = [[0, DERIVE_AFTER + 1], [DERIVE_AFTER + 1, COMPACT_BEFORE], [COMPACT_BEFORE, undefined]]
  const cpu0 = process.cpuUsage()
  for (let t = 1; t <= turns; t++) {
    const steps = turnSteps(t) // the input: built outside the timed region, as in bench/workload.py
    const seqs: number[] = []
    const turnStarted = now()
    for (const [first, last] of runs) {
      if (first === COMPACT_BEFORE && mode === 'compact' && t % 50 === 0) {
        const st = now()
        const surface = s.surface.nodes.map((n: any) => n.seq)
        const half = Math.floor(surface.length / 2)
        append('user/message', { content: [{ type: 'text', text: `summary of ${half} nodes at turn ${t}` }], source: { kind: 'plugin', plugin: 'compact' } },
          { op: 'replace', start: surface[0], end: surface[half - 1] }, surface.slice(0, half))
        compactNs += now() - st
        compactions++
      }
      const st = now()
      for (const [kind, data, op, pos] of steps.slice(first, last)) {
        seqs.push(append(kind, data, op, pos === undefined ? undefined : pos.map(i => seqs[i])))
      }
      appendNs += now() - st
      if (last === DERIVE_AFTER + 1) {
        const d = now()
        s.deriveMessages()
        deriveNs += now() - d
      }
    }
    totalNs += now() - turnStarted
  }
  // CPU of the whole loop, input building included (like cpu_ns in bench/workload.py);
  // it counts V8's helper threads (concurrent GC, compiler) too.
  const cpu = process.cpuUsage(cpu0)
  const messages = s.deriveMessages()
  const surface = s.surface.nodes.map((n: any) => ({ seq: n.seq, prev: n.prev, next: n.next }))
  return {
    target: 'ref', mode, turns, events: s.seq, compactions,
    append_s: Number(appendNs) / 1e9, derive_s: Number(deriveNs) / 1e9, compaction_s: Number(compactNs) / 1e9,
    total_s: Number(totalNs) / 1e9, cpu_s: (cpu.user + cpu.system) / 1e6,
    surface: surface.length, messages: messages.length, generation: s.surface.replaceGeneration,
    messagesSha256: sha(messages), surfaceSha256: sha(surface),
  }
}

console.log(JSON.stringify(run(Number(turnsArg), modeArg)))
