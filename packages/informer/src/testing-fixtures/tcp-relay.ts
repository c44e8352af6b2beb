// Test fixture, no tests of its own: a TCP relay that takes a loopback API server away as a
// stopped server would (connections cut, then refused) and brings it back on the same port, on
// the embedded and the real server alike. Not exported from the package index.
import { once } from 'node:events';
import net from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/** A TCP relay to a server on loopback, that can be closed (connections cut, new ones refused) and opened again on its port. */
export class TcpRelay {
  readonly #target: URL;
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | undefined;
  #port = 0;

  private constructor(target: URL) {
    this.#target = target;
  }

  static async start(target: URL): Promise<TcpRelay> {
    const relay = new TcpRelay(target);
    await relay.restart();
    return relay;
  }

  get url(): string {
    return `${this.#target.protocol}//${this.#target.hostname}:${this.#port}`;
  }

  /** The server's kubeconfig (`url`, `kubeconfigYaml` of a test server) pointed at this relay. */
  kubeConfigOf(server: { readonly url: string; readonly kubeconfigYaml: string }): KubeConfig {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfigYaml.split(server.url).join(this.url));
    return kubeConfig;
  }

  async restart(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(this.#target.port), this.#target.hostname);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => (socket === client ? upstream : client).destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(this.#port, this.#target.hostname);
    await once(server, 'listening');
    this.#port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return;
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
