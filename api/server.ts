/** The only place that opens a socket. */
import type { FastifyInstance } from 'fastify';

/** Listens on host:port and resolves to the address (e.g. http://127.0.0.1:3000). */
export async function startServer(app: FastifyInstance, options: { host: string; port: number }): Promise<string> {
  return app.listen({ host: options.host, port: options.port });
}
