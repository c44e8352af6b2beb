import { readFileSync } from 'node:fs';
import { START_PATH } from './stream-server.js';

/** Asks the stream server to start the watch events, now that the contender's clock runs. */
export async function signalStart(kubeconfigPath: string): Promise<void> {
  const server = /server: "([^"]+)"/.exec(readFileSync(kubeconfigPath, 'utf8'))?.[1];
  const response = await fetch(`${server}${START_PATH}`, { method: 'POST' });
  await response.arrayBuffer();
}
