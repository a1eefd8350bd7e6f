/**
 * How a bench loads the service's modules: compiled, from dist/ (as `npm start` runs it; the npm scripts
 * build it first), or with `source` the TypeScript sources through tsx (whose per-closure name helpers
 * cost a few % of CPU on hot paths). Paths are relative to the project root, e.g. 'api/app.js'.
 */
export function serviceModules(source: boolean): <T>(path: string) => Promise<T> {
  const base = source ? '..' : '../dist';
  return <T>(path: string) => import(`${base}/${path}`) as Promise<T>;
}
