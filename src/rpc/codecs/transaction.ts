/**
 * The transaction object of eth_sendTransaction / personal_sendTransaction (spec "Transaction object"), read as RSKj's
 * `CallArgumentsParam` reads it; its numbers are read after the sender's checks (callArgumentsParam.ts).
 */
import { callArgumentsParam, type CallArgumentsParam } from './callArgumentsParam.js'

export type TxObject = CallArgumentsParam

export const txObject = (v: unknown): TxObject => callArgumentsParam(v)
