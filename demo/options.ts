/** Option parsers shared by the demo's command lines. */
import { InvalidArgumentError } from 'commander';

/** A commander parser for an integer in [min, max]. */
export function integer(min: number, max: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    }
    return parsed;
  };
}

/** Default database of the demo (separate from `npm start`'s data/pi-workflows.db). */
export const DEMO_DB_PATH = 'data/demo.db';

/** Default database of `npm run demo -- --pi-workflows`: a pi-workflows state file. */
export const DEMO_PI_WORKFLOWS_PATH = 'data/demo-pi-workflows.sqlite';

/** Default port of the demo's server (separate from `npm start`'s 4000, so both can run). */
export const DEMO_PORT = 4100;
