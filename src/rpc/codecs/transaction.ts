/** The transaction object of eth_sendTransaction / personal_sendTransaction (spec "Transaction object"). */
import { callObject, type CallObject } from './objects.js'

export type TxObject = CallObject

/** Same fields as the call object; `gas` falls back to `gasLimit`, then to 90,000 (reference §5.3). */
export const txObject = (v: unknown): TxObject => callObject(v)
