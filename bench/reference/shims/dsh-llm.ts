// Stand-in for the reference's dsh-llm package: Session needs only these two functions from it.
export { deepFreeze, callConfigEquals } from '../packages/llm/llm/src/call-config.ts'
