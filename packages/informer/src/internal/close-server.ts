// Closing a Node server waits for its keep-alive connections, which may idle for seconds: both
// the operator's HTTP server and the webhook server close them at once so stop() is prompt.
import type { Server } from 'node:net';

export function closeServer(server: Server & { closeAllConnections(): void }): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
