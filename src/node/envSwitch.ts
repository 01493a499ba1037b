/** Whether the environment variable `name` turns something off: `off`, `0` or `false`, in any case. */
export const offInEnvironment = (name: string): boolean => ['off', '0', 'false'].includes((process.env[name] ?? '').toLowerCase())
