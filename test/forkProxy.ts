/**
 * What the fork tests put between a fork and the rsksim that is its remote: an HTTP proxy that counts the calls, can go
 * down, and can answer traces as RSKj shapes them.
 */
import { createServer, type Server } from 'node:http'

/**
 * RSKj builds the top frame of trace_transaction and of the callTracer from an empty `ProgramResult`
 * (`co/rsk/rpc/modules/trace/TraceTransformer.java` `addTrace`, `debug/trace/call/CallTraceTransformer.java`), so its
 * top `result.output` is always `0x` and the callTracer's top `output` `0x0` without a `revertReason`; rsksim shows
 * the real ones (docs/modules/tracing.md). This turns a remote rsksim's answer into what RSKj would give.
 */
export function asRskjTraces(call: { method: string; params?: unknown[] }, result: any): unknown {
  if (call.method === 'trace_transaction' && Array.isArray(result) && result[0]?.result?.output !== undefined) result[0].result.output = '0x'
  const opts = call.params?.[1] as { tracer?: string } | undefined
  if (call.method === 'debug_traceTransaction' && opts?.tracer === 'callTracer' && result !== null && result.type !== 'CREATE') {
    result.output = '0x0'
    delete result.revertReason
  }
  return result
}

/**
 * An HTTP proxy to `target` that counts the JSON-RPC calls it forwards (and the batches, and the answers to requests
 * it held that it passed back: `heldAnswered`), keeps the request bodies as they came (`bodies`: the text, so a test
 * sees the very digits of a number), can refuse everything
 * (`down`), can hold requests for `delay` ms (only those calling `delayOnly`, when set), and can answer traces as RSKj
 * shapes them (`rskjTraces`).
 */
export async function countingProxy(
  target: string,
): Promise<{ url: string; calls: string[]; batches: string[][]; bodies: string[]; heldAnswered: number; down: boolean; delay: number; delayOnly: string | undefined; rskjTraces: boolean; close(): Promise<void> }> {
  const state = { url: '', calls: [] as string[], batches: [] as string[][], bodies: [] as string[], heldAnswered: 0, down: false, delay: 0, delayOnly: undefined as string | undefined, rskjTraces: false, close: async () => {} }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (state.down) {
        res.writeHead(503).end('down')
        return
      }
      const body = Buffer.concat(chunks).toString()
      state.bodies.push(body)
      const parsed = JSON.parse(body) as { method: string } | { method: string }[]
      for (const c of Array.isArray(parsed) ? parsed : [parsed]) state.calls.push(c.method)
      if (Array.isArray(parsed)) state.batches.push(parsed.map((c) => c.method))
      const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((c) => c.method)
      const delay = state.delayOnly === undefined || methods.includes(state.delayOnly) ? state.delay : 0
      new Promise((resolve) => setTimeout(resolve, delay))
        .then(() => fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
        .then(async (r) => {
          let text = await r.text()
          if (state.rskjTraces && r.status === 200) {
            const calls = new Map((Array.isArray(parsed) ? parsed : [parsed]).map((c: any) => [c.id, c]))
            const reply = JSON.parse(text)
            for (const a of Array.isArray(reply) ? reply : [reply]) if ('result' in a) a.result = asRskjTraces(calls.get(a.id), a.result)
            text = JSON.stringify(reply)
          }
          if (delay > 0) state.heldAnswered++
          res.writeHead(r.status, { 'content-type': 'application/json' }).end(text)
        })
        .catch(() => res.writeHead(502).end())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  state.url = `http://127.0.0.1:${port}/AbCdEf0123456789secretKey`
  state.close = () => new Promise((resolve) => server.close(() => resolve()))
  return state
}
