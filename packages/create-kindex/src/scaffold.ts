/**
 * Writes a generated project to disk, after checking that its directory is new or empty, so a
 * mistake never leaves half a project or overwrites someone's files.
 *
 * @module
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProjectOptionError, type ProjectOptions } from './project-options.js';
import { renderProject, type PackageVersions, type ProjectFile } from './render-template.js';

/** The template's directory in this package (beside src/ and dist/). */
export const TEMPLATE_DIR = fileURLToPath(new URL('../template/', import.meta.url));

/** Why `directory` cannot receive a project, or undefined when it is new or empty. */
export function directoryProblem(directory: string, cwd: string): string | undefined {
  if (!existsSync(directory)) return undefined;
  const shown = relative(cwd, directory) || '.';
  if (!statSync(directory).isDirectory()) return `${shown} exists and is a file: choose another project name`;
  if (readdirSync(directory).length > 0)
    return `directory ${shown} exists and is not empty: choose another project name, or empty it first`;
  return undefined;
}

/**
 * The @kubernetes/client-node range for the Node.js that runs the scaffolder (and that the
 * Dockerfile pins): 2.x needs Node.js 22.19 or newer, and npm would pick it from a wider range.
 */
export function clientNodeRange(nodeVersion: string): string {
  const [major = 0, minor = 0] = nodeVersion.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 19) ? '^2.0.1' : '^1.4.0';
}

/** Writes the project; throws {@link ProjectOptionError} (nothing written) when its directory is taken. */
export function scaffold(options: ProjectOptions, versions: PackageVersions, cwd: string, nodeVersion: string): ProjectFile[] {
  const problem = directoryProblem(options.directory, cwd);
  if (problem !== undefined) throw new ProjectOptionError(problem);
  const files = renderProject(TEMPLATE_DIR, options, versions, nodeVersion);
  for (const file of files) {
    const path = join(options.directory, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
  }
  return files;
}
