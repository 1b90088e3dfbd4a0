/**
 * Whether this instance can serve: the database answers, its schema is up to date, and Redis
 * (when configured) is connected. Each check is reported by name so that a 503 says which failed.
 */
import type { ServiceContext } from '../context.js';
import { pendingMigrations, pingDatabase } from '../store/health.js';

export type CheckResult = 'ok' | 'failed';

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

async function check(ctx: ServiceContext, name: string, probe: () => Promise<unknown>): Promise<CheckResult> {
  try {
    await probe();
    return 'ok';
  } catch (err) {
    ctx.logger.warn({ check: name, err: (err as Error).message }, 'readiness check failed');
    return 'failed';
  }
}

export async function checkReadiness(ctx: ServiceContext): Promise<Readiness> {
  const checks: Record<string, CheckResult> = {
    database: await check(ctx, 'database', () => pingDatabase(ctx.store)),
    migrations: await check(ctx, 'migrations', async () => {
      const pending = await pendingMigrations(ctx.store);
      if (pending.length > 0) throw new Error(`pending: ${pending.join(', ')}`);
    }),
  };
  const redis = ctx.redis;
  if (redis) {
    checks.redis = await check(ctx, 'redis', async () => {
      // While ioredis reconnects, commands queue; a readiness probe must not wait for that.
      if (redis.status !== 'ready') throw new Error(`connection ${redis.status}`);
      await redis.ping();
    });
  }
  return { ready: Object.values(checks).every((c) => c === 'ok'), checks };
}
