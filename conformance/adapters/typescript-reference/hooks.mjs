// Module resolution for the adapter: the original's workspace packages by name from the checkout
// the user gave, its npm dependencies from the adapter's own node_modules (or DEPS_DIR).
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

const PACKAGES = {
  '@deepseek-ai/dsh-session': 'packages/core/session/src/index.ts',
  '@deepseek-ai/dsh-llm': 'packages/llm/llm/src/index.ts',
  '@deepseek-ai/dsh-session-persistence': 'packages/session-persistence/session-persistence/src/index.ts',
  '@deepseek-ai/dsh-session-persistence-jsonl': 'packages/session-persistence/session-persistence-jsonl/src/index.ts',
  '@deepseek-ai/dsh-session-persistence-sqlite': 'packages/session-persistence/session-persistence-sqlite/src/index.ts',
  '@deepseek-ai/dsh-invariants': 'packages/support/invariants/src/index.ts',
  // the agent loop's header writer, a module its package exports by path (`./src/*`)
  '@deepseek-ai/dsh-agent-loop/src/request-log.ts': 'packages/core/agent-loop/src/request-log.ts',
}
let checkout = ''
let deps = createRequire(import.meta.url)

export async function initialize(data) {
  checkout = data.checkout
  deps = createRequire(pathToFileURL(data.deps + '/'))
}

export async function resolve(specifier, context, next) {
  if (specifier in PACKAGES) return { url: pathToFileURL(`${checkout}/${PACKAGES[specifier]}`).href, shortCircuit: true }
  if (/^[a-z@]/.test(specifier) && !specifier.startsWith('node:') && !specifier.startsWith('@deepseek-ai/')) {
    try { return next(pathToFileURL(deps.resolve(specifier)).href, context) } catch { /* a builtin */ }
  }
  return next(specifier, context)
}
