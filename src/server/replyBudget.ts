/**
 * One budget, for the whole server, of the bytes written to clients but not yet taken by them: HTTP replies (the
 * fast path's and node:http's) and WebSocket messages. Each connection is bounded on its own (an HTTP reply by
 * `maxResponseSize`, a WebSocket by 16 MiB unsent, src/server/ws.ts), but not all of them together: 50 HTTP clients
 * that asked for an 8.4 MB `eth_getLogs` reply each and never read it took the server from 102 to 580 MB, 50
 * WebSocket subscribers not reading through 20,000 mined blocks from 67 MB to 1.1 GB (docs/robustness.md).
 *
 * Bytes are counted where the server already looks: a write that the kernel takes at once leaves nothing unsent
 * (`socket.writableLength` is 0 right after it) and costs one property read. Only a write that leaves bytes behind
 * makes its connection a holder: the budget then follows it through the socket's `'drain'` (all taken) and `'close'`,
 * and measures it again at each further write to it. When a write takes the total past the limit, every holder is
 * measured again (a client that took bytes since the last look is reading), and connections are closed, the one
 * that has held the most bytes the longest without taking any first (unsent bytes times the time since the client
 * last took some), until the total is back under the limit. The connection written to is spared when it had nothing
 * unsent before the write (a reply, even one over the limit, is not cut as it is written), so the total may pass the
 * limit by that one write. A client that reads its replies is thus the last one closed; it is closed only when the
 * clients that read together hold more than the limit.
 *
 * What is counted is what node counts: characters of the strings written (JSON is ASCII but for non-ASCII text in
 * strings) and bytes of buffers; an HTTP reply is one write, counted whole until its last byte is taken.
 */
import type { Socket } from 'node:net'
import type { ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'

/** Default budget: 256 MiB, room for 25 replies of the default `maxResponseSize` (10 MiB) not yet taken. */
export const DEFAULT_MAX_PENDING_REPLY_BYTES = 256 * 1024 * 1024

interface Holder {
  /** Unsent bytes at the last look. */
  bytes: number
  /** When the client last took bytes, or when its backlog began (ms). */
  quietSince: number
  /** Counted in `held` (it had bytes unsent at the last look). */
  active: boolean
  /** Its connection closed: never counted again. */
  gone: boolean
  measure: () => number
  close: () => void
}

/** What a WebSocket connection must offer (the `ws` library's `WebSocket`). */
export interface BudgetedWebSocket {
  readonly bufferedAmount: number
}

/**
 * The server's budget of unsent reply bytes; `limit` 0 = off (nothing is counted).
 *
 * @example
 * ```ts
 * const budget = new ReplyBudget(256 * 1024 * 1024)
 * socket.write(reply)
 * if (socket.writableLength > 0) budget.noteSocket(socket)
 * ```
 */
export class ReplyBudget {
  /** Bytes written and not yet taken by the clients, over every connection (as of the last look at each). */
  held = 0
  /** The most `held` was once a write's bookkeeping was done (for tests). */
  peak = 0
  /** Connections closed to keep `held` under the limit. */
  closed = 0
  private readonly active = new Set<Holder>()
  private readonly holders = new WeakMap<object, Holder>()
  /** node:http replies written before the previous reply on their connection went out (pipelining): not yet on the socket. */
  private readonly queued = new WeakMap<Socket, Set<ServerResponse>>()

  constructor(readonly limit: number) {}

  /** After a write to `socket` (fast path or node:http) left bytes unsent, or to a socket the budget follows. */
  noteSocket(socket: Socket): void {
    let h = this.holders.get(socket)
    if (h === undefined) {
      const queued = this.queued
      h = this.holder(
        socket,
        socket,
        () => {
          const q = queued.get(socket)
          let n = socket.writableLength
          // A reply that waits behind its connection's previous one is held by node:http, not yet by the socket.
          if (q !== undefined) for (const res of q) if (res.socket === null) n += res.writableLength
          return n
        },
        () => socket.destroy(),
      )
    }
    this.note(h)
  }

  /**
   * After node:http's `res.end()` on `socket`: `res` is followed until it is written out when it is not yet on the
   * socket (it waits behind the connection's previous reply), and the socket when bytes are left unsent.
   */
  noteResponse(res: ServerResponse, socket: Socket): void {
    if (res.writableLength === 0) return
    if (res.socket === null) {
      let q = this.queued.get(socket)
      if (q === undefined) this.queued.set(socket, (q = new Set()))
      q.add(res)
      const done = (): void => {
        q.delete(res)
        this.noteSocket(socket)
      }
      res.once('finish', done)
      res.once('close', done)
    }
    this.noteSocket(socket)
  }

  /**
   * After a message to `ws` (whose network socket is `socket`) left bytes unsent, or to one the budget follows.
   * `close` closes it (and stops what feeds it at once, not when its 'close' event comes).
   */
  noteWebSocket(ws: BudgetedWebSocket, socket: Duplex, close: () => void): void {
    this.note(this.holders.get(ws) ?? this.holder(ws, socket, () => ws.bufferedAmount, close))
  }

  private holder(key: object, socket: Duplex, measure: () => number, close: () => void): Holder {
    const h: Holder = { bytes: 0, quietSince: 0, active: false, gone: false, measure, close }
    this.holders.set(key, h)
    // 'drain': all written bytes were taken (after a write that filled the socket's buffer). A backlog that never
    // filled it (under 16 KiB) is measured again at the next write or look, so no count stays wrong for long.
    socket.on('drain', () => this.refresh(h, Date.now()))
    socket.once('close', () => this.drop(h))
    return h
  }

  private note(h: Holder): void {
    if (h.gone) return
    const now = Date.now()
    // A write to a connection with nothing unsent before it is never the one closed for it: a client that reads gets
    // its reply, even one larger than the budget (`maxResponseSize` 0); it is closed later only if it does not take it.
    let fresh: Holder | undefined
    if (!h.active) {
      const n = h.measure()
      if (n === 0) return
      h.active = true
      h.bytes = 0
      h.quietSince = now
      this.active.add(h)
      fresh = h
    }
    this.refresh(h, now)
    if (this.held > this.limit) this.free(now, fresh)
    if (this.held > this.peak) this.peak = this.held
  }

  /** Measures `h` again: fewer bytes than at the last look means its client took some. */
  private refresh(h: Holder, now: number): void {
    if (!h.active) return
    const n = h.measure()
    if (n < h.bytes) h.quietSince = now
    this.held += n - h.bytes
    h.bytes = n
    if (n === 0) {
      h.active = false
      this.active.delete(h)
    }
  }

  private drop(h: Holder): void {
    h.gone = true
    if (!h.active) return
    this.held -= h.bytes
    h.bytes = 0
    h.active = false
    this.active.delete(h)
  }

  /**
   * Closes connections, the most bytes held longest without the client taking any first, until under the limit;
   * never `spared` (the connection just written to, which had nothing unsent before).
   */
  private free(now: number, spared: Holder | undefined): void {
    for (const h of this.active) this.refresh(h, now)
    while (this.held > this.limit) {
      let worst: Holder | undefined
      let worstScore = -1
      for (const h of this.active) {
        if (h === spared) continue
        const score = h.bytes * (now - h.quietSince + 1)
        if (score > worstScore) {
          worst = h
          worstScore = score
        }
      }
      if (worst === undefined) return
      this.drop(worst)
      this.closed++
      worst.close()
    }
  }
}
