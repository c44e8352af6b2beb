/**
 * Turns the template (a real, compiling project for a `Widget` of `example.com/v1alpha1` named
 * `my-operator`, in ../template) into a project: renames the Widget throughout, keeps or drops
 * the blocks between `kindex:<feature>-start` and `kindex:<feature>-end` marker lines, and sets
 * the package.json fields that depend on the options and the running Node.js.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pluralOf, type ProjectOptions } from './project-options.js';

/** One file of a generated project: its path relative to the project and its content. */
export interface ProjectFile {
  readonly path: string;
  readonly content: string;
}

/** Names in the template, to be replaced by the project's. */
interface Names {
  readonly kind: string;
  readonly pluralKind: string;
  readonly plural: string;
  readonly camel: string;
  readonly kebab: string;
  readonly singular: string;
}

function namesOf(kind: string): Names {
  const kebab = kind
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
  return {
    kind,
    pluralKind: pluralOf(kind),
    plural: pluralOf(kind.toLowerCase()),
    camel: kind[0]!.toLowerCase() + kind.slice(1),
    kebab,
    singular: kind.toLowerCase(),
  };
}

// One pass over the text, so a replacement is never replaced again (a group holding `v1alpha1`).
const TOKENS = /\.\/widget|src\/widget|-widget|Widgets|widgets|Widget|widget|example\.com|v1alpha1|my-operator/g;

function rename(text: string, options: ProjectOptions, names: Names, prose: boolean): string {
  return text.replace(TOKENS, (token) => {
    switch (token) {
      case './widget':
        return `./${names.kebab}`;
      case 'src/widget':
        return `src/${names.kebab}`;
      case '-widget':
        return `-${names.kebab}`;
      case 'Widgets':
        return names.pluralKind;
      case 'widgets':
        return names.plural;
      case 'Widget':
        return names.kind;
      case 'widget':
        // In prose (`kubectl describe widget`) the resource's singular name; in code an identifier.
        return prose ? names.singular : names.camel;
      case 'example.com':
        return options.group;
      case 'v1alpha1':
        return options.apiVersion;
      default:
        return options.name;
    }
  });
}

/** Keeps the lines of enabled features' blocks (without their marker lines) and drops the others'. */
export function selectBlocks(text: string, enabled: ReadonlySet<string>, file: string): string {
  const out: string[] = [];
  let open: { feature: string; keep: boolean } | undefined;
  for (const line of text.split('\n')) {
    const marker = /kindex:([a-z]+)-(start|end)\b/.exec(line);
    if (marker === null) {
      if (open === undefined || open.keep) out.push(line);
      continue;
    }
    const [, feature, edge] = marker as unknown as [string, string, 'start' | 'end'];
    if (edge === 'start') {
      if (open !== undefined) throw new Error(`template ${file}: kindex:${feature}-start inside kindex:${open.feature}`);
      open = { feature, keep: enabled.has(feature) };
    } else {
      if (open?.feature !== feature) throw new Error(`template ${file}: kindex:${feature}-end without its start`);
      open = undefined;
    }
  }
  if (open !== undefined) throw new Error(`template ${file}: kindex:${open.feature}-start without its end`);
  return out.join('\n');
}

/** Template files that exist only with a feature. */
const FEATURE_FILES: Readonly<Record<string, string>> = {
  'src/widget-webhooks.ts': 'webhook',
  'src/widget-webhooks.test.ts': 'webhook',
};

/** npm publishes no `.gitignore`, so the template ships it under another name. */
const RENAMED: Readonly<Record<string, string>> = { _gitignore: '.gitignore' };

/** What the package.json of the project depends on beyond the template's fixed versions. */
export interface PackageVersions {
  /** The version of @kindex/* (the scaffolder's own: all packages are released together). */
  readonly kindex: string;
  /** The range of @kubernetes/client-node that works on the Node.js running the scaffolder. */
  readonly clientNode: string;
  /** The exact pnpm release for `packageManager`, when the project uses pnpm. */
  readonly pnpm?: string;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).replaceAll('\\', '/'))
    .filter((path) => !path.startsWith('node_modules/') && !path.startsWith('dist/') && !path.startsWith('config/'))
    .sort();
}

/** The files of the project `options` describes, from the template in `templateDir`. */
export function renderProject(templateDir: string, options: ProjectOptions, versions: PackageVersions, nodeVersion: string): ProjectFile[] {
  const names = namesOf(options.kind);
  const enabled = new Set<string>([options.packageManager, ...(options.webhook ? ['webhook'] : [])]);
  const files: ProjectFile[] = [];
  for (const path of listFiles(templateDir)) {
    const feature = FEATURE_FILES[path];
    if (feature !== undefined && !enabled.has(feature)) continue;
    let content = selectBlocks(readFileSync(join(templateDir, path), 'utf8'), enabled, path);
    content = rename(content, options, names, path.endsWith('.md'));
    if (path === 'package.json') content = packageJson(content, options, versions);
    if (path === 'Dockerfile') content = content.replaceAll('node:20.20.2-bookworm-slim', `node:${nodeVersion}-bookworm-slim`);
    if (path === 'README.md' && options.packageManager === 'pnpm') content = pnpmCommands(content);
    files.push({ path: rename(RENAMED[path] ?? path, options, names, false), content });
  }
  return files;
}

function packageJson(text: string, options: ProjectOptions, versions: PackageVersions): string {
  const manifest = JSON.parse(text) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
    packageManager?: string;
    allowScripts?: Record<string, boolean>;
    pnpm?: { onlyBuiltDependencies: string[] };
  };
  for (const deps of [manifest.dependencies, manifest.devDependencies]) {
    for (const name of Object.keys(deps)) if (name.startsWith('@kindex/')) deps[name] = versions.kindex;
  }
  manifest.dependencies['@kubernetes/client-node'] = versions.clientNode;
  // `kindex manifests` must know where the webhooks' serving certificate comes from.
  if (options.webhook) manifest.scripts['manifests'] += ' --webhook-certs secret';
  // npm 11 and pnpm 10 skip unapproved install scripts and warn. esbuild's (under tsx) fetches
  // nothing (its binary comes in a platform package): approved, as the kindex workspace does.
  if (options.packageManager === 'pnpm') {
    delete manifest.allowScripts;
    manifest.pnpm = { onlyBuiltDependencies: ['esbuild'] };
    if (versions.pnpm !== undefined) manifest.packageManager = `pnpm@${versions.pnpm}`;
  }
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The README's npm commands, spelt for pnpm. */
function pnpmCommands(text: string): string {
  return text.replace(/\bnpm (run|test|start|install)\b/g, (_match, command: string) => `pnpm ${command}`);
}
