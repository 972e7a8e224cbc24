/**
 * Types of `fast-json-patch`'s ES module build, imported by path in live-json-patch.ts: the
 * same API as the package's main entry (its `index.d.ts`).
 */
declare module 'fast-json-patch/index.mjs' {
  export { compare } from 'fast-json-patch';
}
