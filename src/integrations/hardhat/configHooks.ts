/**
 * Hardhat 3 `config` hooks: keep each network's `rsksim` options in the resolved config. Hardhat's resolution builds
 * the resolved `http` network config field by field, so a key it does not know is dropped; this hook copies it back
 * (Hardhat's `resolveUserConfig` hook: hardhat/types/hooks `ConfigHooks`).
 */
import type { RsksimNetworkOptions } from './index.js'

interface NetworksHolder {
  networks?: Record<string, unknown>
}

type ResolveNext = (userConfig: NetworksHolder, resolveVariable: unknown) => Promise<NetworksHolder>

function rsksimOptionsOf(network: unknown): RsksimNetworkOptions | undefined {
  if (typeof network !== 'object' || network === null || !('rsksim' in network)) return undefined
  const options = (network as { rsksim: unknown }).rsksim
  return typeof options === 'object' && options !== null ? (options as RsksimNetworkOptions) : undefined
}

export default async (): Promise<Record<string, unknown>> => ({
  async resolveUserConfig(userConfig: NetworksHolder, resolveVariable: unknown, next: ResolveNext): Promise<NetworksHolder> {
    const resolved = await next(userConfig, resolveVariable)
    for (const [name, network] of Object.entries(userConfig.networks ?? {})) {
      const options = rsksimOptionsOf(network)
      const target = resolved.networks?.[name]
      if (options !== undefined && typeof target === 'object' && target !== null) {
        Object.assign(target, { rsksim: options })
      }
    }
    return resolved
  },
})
