/**
 * What the tracers share: they listen to the EVM's `step`, `beforeMessage` and `afterMessage` events while one
 * transaction runs.
 */
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'

export abstract class EvmRecorder {
  protected abstract readonly onStep: (step: InterpreterStep) => void
  protected abstract readonly onBeforeMessage: (message: Message) => void
  protected abstract readonly onAfterMessage: (result: EVMResult) => void

  attach(evm: EVM): void {
    evm.events.on('step', this.onStep)
    evm.events.on('beforeMessage', this.onBeforeMessage)
    evm.events.on('afterMessage', this.onAfterMessage)
  }

  detach(evm: EVM): void {
    evm.events.off('step', this.onStep)
    evm.events.off('beforeMessage', this.onBeforeMessage)
    evm.events.off('afterMessage', this.onAfterMessage)
  }
}
