/**
 * `npm pack` / `npm publish` (package.json "prepack" and "postpack"): writes `npm-shrinkwrap.json`
 * for the package, the lock file less the devDependencies' entries, and removes it again after
 * packing (`node scripts/shrinkwrap.mjs --remove`); it is never committed (.gitignore).
 *
 * Why a shrinkwrap: pi-workflows-graphql is a CLI first (`npx pi-workflows-graphql`), and npm
 * installs a package's shrinkwrap as it is, so a user gets exactly the dependency versions the
 * repository's lock file was tested with, and the installer needs no registry metadata
 * (packuments) at all: only the tarballs, which an offline install finds in npm's cache
 * (test/e2e/npx-package.test.ts). The repository itself keeps `package-lock.json` (a root
 * `npm-shrinkwrap.json` would replace it for `npm ci` too).
 * Plain JavaScript on purpose: it runs with `node` alone.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'npm-shrinkwrap.json');
if (process.argv.includes('--remove')) {
  rmSync(target, { force: true });
} else {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  // Entries only devDependencies need are marked `"dev": true` in the lock; everything else
  // (dependencies, their optional and peer dependencies) is what a user's install places.
  const packages = Object.fromEntries(Object.entries(lock.packages).filter(([, entry]) => entry.dev !== true));
  writeFileSync(target, `${JSON.stringify({ ...lock, packages }, null, 2)}\n`);
  process.stderr.write(
    `wrote ${target}: ${Object.keys(packages).length - 1} packages (package-lock.json less its ${Object.keys(lock.packages).length - Object.keys(packages).length} dev-only ones)\n`,
  );
}
