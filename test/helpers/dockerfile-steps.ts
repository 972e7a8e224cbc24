/**
 * Reads `deploy/Dockerfile` into its stages and instructions, so a test can carry out the
 * image's steps on this machine (no container engine runs here): the same commands, the same
 * user, and the image's paths (`/app`, `/data`) mapped under a temporary directory.
 *
 * Supported syntax is what the project's Dockerfile uses: `ARG` with a default before the
 * first `FROM`, `FROM image AS name`, `WORKDIR`, `COPY [--from=stage] src... dest`,
 * `RUN` (shell form), `ENV k=v ...`, `USER`, `VOLUME [json]`, `EXPOSE`,
 * `HEALTHCHECK [options] CMD [json]`, `CMD [json]`; `\` line continuations and `#` comments.
 * Anything else throws, so a new instruction cannot be silently ignored by the test.
 */
import { readFileSync } from 'node:fs';

/** One instruction of a stage. */
export type Instruction =
  | { kind: 'WORKDIR'; path: string }
  | { kind: 'COPY'; from: string | null; sources: string[]; dest: string }
  | { kind: 'RUN'; command: string }
  | { kind: 'ENV'; values: Record<string, string> }
  | { kind: 'USER'; user: string }
  | { kind: 'VOLUME'; paths: string[] }
  | { kind: 'EXPOSE'; ports: string[] }
  | { kind: 'HEALTHCHECK'; options: Record<string, string>; command: string[] }
  | { kind: 'CMD'; command: string[] };

/** One `FROM` stage. */
export interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

/** Splits the file into logical lines: continuations joined, comments and blank lines dropped. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (current === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1).trim()} `;
      continue;
    }
    lines.push((current + line.trim()).trim());
    current = '';
  }
  if (current !== '') lines.push(current.trim());
  return lines;
}

/** `KEY=value KEY2="two words"` (the forms the Dockerfile uses). */
function parseEnv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g)) {
    values[match[1] as string] = match[3] ?? (match[2] as string);
  }
  return values;
}

function jsonArray(text: string, where: string): string[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) throw new Error(`${where}: expected a JSON string array`);
  return parsed;
}

/**
 * Parses a Dockerfile.
 *
 * @returns the stages in file order, `FROM` arguments resolved with the `ARG` defaults
 * @throws Error for an instruction or form outside the supported subset
 */
export function parseDockerfile(path: string): Stage[] {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of logicalLines(readFileSync(path, 'utf8'))) {
    const [keyword = '', ...restParts] = line.split(' ');
    const rest = restParts.join(' ').trim();
    const stage = stages.at(-1);
    const add = (instruction: Instruction) => {
      if (stage === undefined) throw new Error(`${keyword} before FROM`);
      stage.instructions.push(instruction);
    };
    switch (keyword) {
      case 'ARG': {
        const [name = '', value = ''] = rest.split('=');
        args[name] = value;
        break;
      }
      case 'FROM': {
        const match = /^(\S+) AS (\S+)$/i.exec(rest);
        if (match === null) throw new Error(`FROM needs "image AS name": ${line}`);
        const image = (match[1] as string).replace(/\$\{(\w+)\}/g, (_all, name: string) => args[name] ?? '');
        stages.push({ name: match[2] as string, image, instructions: [] });
        break;
      }
      case 'WORKDIR':
        add({ kind: 'WORKDIR', path: rest });
        break;
      case 'COPY': {
        const words = rest.split(/\s+/);
        let from: string | null = null;
        while (words[0]?.startsWith('--') === true) {
          const flag = words.shift() as string;
          if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
          else throw new Error(`unsupported COPY flag ${flag}`);
        }
        const dest = words.pop();
        if (dest === undefined || words.length === 0) throw new Error(`COPY needs sources and a destination: ${line}`);
        add({ kind: 'COPY', from, sources: words, dest });
        break;
      }
      case 'RUN':
        if (rest.startsWith('[')) throw new Error('RUN in exec form is not supported');
        add({ kind: 'RUN', command: rest });
        break;
      case 'ENV':
        add({ kind: 'ENV', values: parseEnv(rest) });
        break;
      case 'USER':
        add({ kind: 'USER', user: rest });
        break;
      case 'VOLUME':
        add({ kind: 'VOLUME', paths: jsonArray(rest, 'VOLUME') });
        break;
      case 'EXPOSE':
        add({ kind: 'EXPOSE', ports: rest.split(/\s+/) });
        break;
      case 'HEALTHCHECK': {
        const match = /^((?:--\S+=\S+\s+)*)CMD\s+(\[.*\])$/.exec(rest);
        if (match === null) throw new Error(`HEALTHCHECK needs "[--opt=value ...] CMD [json]": ${line}`);
        const options = Object.fromEntries(
          (match[1] as string)
            .trim()
            .split(/\s+/)
            .filter((word) => word !== '')
            .map((word) => word.slice(2).split('=') as [string, string]),
        );
        add({ kind: 'HEALTHCHECK', options, command: jsonArray(match[2] as string, 'HEALTHCHECK') });
        break;
      }
      case 'CMD':
        add({ kind: 'CMD', command: jsonArray(rest, 'CMD') });
        break;
      default:
        throw new Error(`unsupported Dockerfile instruction: ${line}`);
    }
  }
  return stages;
}

/**
 * A `.dockerignore` as a predicate over context-relative paths (`/`-separated): `*` matches
 * within one path segment, `**` across segments; a matched directory excludes everything in it.
 */
export function dockerignore(path: string): (relativePath: string) => boolean {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return () => false;
  }
  const patterns = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => {
      if (pattern.startsWith('!')) throw new Error(`.dockerignore exceptions (${pattern}) are not supported by the test`);
      const source = pattern
        .replace(/^\/+|\/+$/g, '')
        .split('**')
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
        )
        .join('.*');
      return new RegExp(`^${source}(/.*)?$`);
    });
  return (relativePath) => patterns.some((pattern) => pattern.test(relativePath));
}
