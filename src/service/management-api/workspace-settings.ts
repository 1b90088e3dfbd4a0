/** Workspace settings (an extension): visitor deletion through the Server API, and data retention. */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { getWorkspace, updateWorkspaceSettings } from '../store/workspaces.js';
import { bodyFields } from './fields.js';
import { callerOf, route } from './index.js';

export function workspaceSettingsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const settings = async (workspaceId: string) => {
    const workspace = (await getWorkspace(ctx.store, workspaceId))!;
    return { data: { visitor_deletion_enabled: workspace.deletion_enabled === 1, data_retention_days: workspace.data_retention_days } };
  };

  app.get('/workspace/settings', route('settings:read'), async (request) => settings(callerOf(request).workspaceId));

  app.patch('/workspace/settings', route('settings:write'), async (request) => {
    const body = bodyFields(request.body);
    const deletionEnabled = body.boolean('visitor_deletion_enabled');
    const retentionDays = body.has('data_retention_days') && body.raw('data_retention_days') === null ? null : body.integer('data_retention_days', 1, 3650);
    body.check();
    const workspaceId = callerOf(request).workspaceId;
    await updateWorkspaceSettings(ctx.store, workspaceId, { deletionEnabled, retentionDays });
    return settings(workspaceId);
  });
}
