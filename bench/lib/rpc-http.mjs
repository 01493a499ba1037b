// A minimal keep-alive JSON-RPC client over node:http, the same for every HTTP target (rsksim's server, Anvil),
// so the client's own cost is equal on both sides. One socket, requests in sequence, as a test suite sends them.
import http from 'node:http'

/**
 * @param {string} url  e.g. http://127.0.0.1:4444/
 * @returns {{ request(method: string, params?: unknown[]): Promise<unknown>, close(): void }}
 */
export function httpRpc(url) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const { hostname, port, pathname } = new URL(url)
  let id = 0
  function post(body) {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { hostname, port, path: pathname || '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          const chunks = []
          res.on('data', (c) => chunks.push(c))
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  }
  return {
    async request(method, params = []) {
      const text = await post(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }))
      const reply = JSON.parse(text)
      if (reply.error) {
        const err = new Error(`${method}: ${reply.error.code} ${reply.error.message}`)
        err.code = reply.error.code
        err.data = reply.error.data
        throw err
      }
      return reply.result
    },
    close() {
      agent.destroy()
    },
  }
}
