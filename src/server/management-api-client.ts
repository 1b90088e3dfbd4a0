/**
 * Typed client of the Management API (`Authorization: Bearer <management key>` and
 * `X-API-Version`): environments, API keys, filtering rules, workspace settings and webhooks. Errors are
 * `ManagementApiError`s; lists return a `Page` and have an `iterate...` twin over every page.
 */
import { HttpTransport, type ClientOptions, type Query } from './http.js';
import type {
  ApiKey,
  ApiKeyCreate,
  ApiKeyListFilter,
  ApiKeyUpdate,
  CreatedApiKey,
  EncryptionKey,
  EncryptionKeyCreate,
  EncryptionKeyListFilter,
  EncryptionKeyUpdate,
  Environment,
  EnvironmentCreate,
  EnvironmentUpdate,
  FilteringRule,
  FilteringRuleCreate,
  FilteringRuleListFilter,
  FilteringRulesTest,
  FilteringRulesTestResult,
  FilteringRuleUpdate,
  ListQuery,
  ListResponse,
  Page,
  CreatedWebhook,
  Webhook,
  WebhookAttempt,
  WebhookCreate,
  WebhookDelivery,
  WebhookListFilter,
  WebhookUpdate,
  WebhookVerification,
  WorkspaceSettings,
  WorkspaceSettingsUpdate,
} from './management-api-types.js';
import { paginate } from './paginate.js';

/** The Management API version this client speaks (the only one the service supports). */
export const MANAGEMENT_API_VERSION = '2025-11-20';

export interface ManagementApiClientOptions {
  /** A management key. */
  apiKey: string;
  /** Origin of the service, e.g. `http://127.0.0.1:8080` (the Management API is at its root). */
  baseUrl: string;
  /** A custom fetch (instrumentation, proxies, tests); defaults to the global one. */
  fetch?: typeof fetch;
  /** `X-API-Version`; default `2025-11-20`. */
  apiVersion?: string;
  /** Retry requests answered 429, waiting `Retry-After` seconds. Off unless given. */
  retry?: ClientOptions['retry'];
}

const seg = encodeURIComponent;

export class ManagementApiClient {
  private readonly http: HttpTransport;

  constructor(options: ManagementApiClientOptions) {
    // No region default: a management key goes only to the service it was given for.
    if (typeof options.baseUrl !== 'string' || options.baseUrl === '') {
      throw new TypeError('baseUrl (the origin of the Tessera service) is required');
    }
    this.http = new HttpTransport(options, {
      headers: {
        Authorization: `Bearer ${options.apiKey}`,
        'X-API-Version': options.apiVersion ?? MANAGEMENT_API_VERSION,
      },
      dialect: 'management',
      integrationInfo: false,
    });
  }

  // Environments

  /** `GET /environments`: one page. */
  listEnvironments(query: ListQuery = {}): Promise<Page<Environment>> {
    return this.list('/environments', { ...query });
  }

  /** Every environment, across pages. */
  iterateEnvironments(query: ListQuery = {}): AsyncGenerator<Environment> {
    return paginate((cursor) => this.listEnvironments({ ...query, cursor }), query.cursor);
  }

  /** `POST /environments`. */
  createEnvironment(body: EnvironmentCreate): Promise<Environment> {
    return this.data('POST', '/environments', body);
  }

  /** `GET /environments/{id}`. */
  getEnvironment(id: string): Promise<Environment> {
    return this.data('GET', `/environments/${seg(id)}`);
  }

  /** `PATCH /environments/{id}`: only the given fields change. */
  updateEnvironment(id: string, update: EnvironmentUpdate): Promise<Environment> {
    return this.data('PATCH', `/environments/${seg(id)}`, update);
  }

  /** `DELETE /environments/{id}`: 409 `conflict` for the default one or one still in use. */
  async deleteEnvironment(id: string): Promise<void> {
    await this.http.request('DELETE', `/environments/${seg(id)}`);
  }

  // API keys

  /** `GET /api-keys`: one page (without tokens). */
  listApiKeys(filter: ApiKeyListFilter = {}): Promise<Page<ApiKey>> {
    return this.list('/api-keys', { ...filter });
  }

  /** Every matching API key, across pages. */
  iterateApiKeys(filter: ApiKeyListFilter = {}): AsyncGenerator<ApiKey> {
    return paginate((cursor) => this.listApiKeys({ ...filter, cursor }), filter.cursor);
  }

  /** `POST /api-keys`: the answer carries the `token`, shown this once. */
  createApiKey(body: ApiKeyCreate): Promise<CreatedApiKey> {
    return this.data('POST', '/api-keys', body);
  }

  /** `GET /api-keys/{id}`. */
  getApiKey(id: string): Promise<ApiKey> {
    return this.data('GET', `/api-keys/${seg(id)}`);
  }

  /** `PATCH /api-keys/{id}`: only the given fields change. */
  updateApiKey(id: string, update: ApiKeyUpdate): Promise<ApiKey> {
    return this.data('PATCH', `/api-keys/${seg(id)}`, update);
  }

  /** `DELETE /api-keys/{id}`: the key stops working at once. */
  async deleteApiKey(id: string): Promise<void> {
    await this.http.request('DELETE', `/api-keys/${seg(id)}`);
  }

  // Filtering rules

  /** `GET /filtering-rules`: one page, in evaluation order. */
  listFilteringRules(filter: FilteringRuleListFilter = {}): Promise<Page<FilteringRule>> {
    return this.list('/filtering-rules', { ...filter });
  }

  /** Every matching filtering rule, across pages. */
  iterateFilteringRules(filter: FilteringRuleListFilter = {}): AsyncGenerator<FilteringRule> {
    return paginate((cursor) => this.listFilteringRules({ ...filter, cursor }), filter.cursor);
  }

  /** `POST /filtering-rules`. */
  createFilteringRule(body: FilteringRuleCreate): Promise<FilteringRule> {
    return this.data('POST', '/filtering-rules', body);
  }

  /** `GET /filtering-rules/{id}`. */
  getFilteringRule(id: string): Promise<FilteringRule> {
    return this.data('GET', `/filtering-rules/${seg(id)}`);
  }

  /** `POST /filtering-rules/{id}` with `id` in the body too: only the given fields change. */
  updateFilteringRule(id: string, update: FilteringRuleUpdate): Promise<FilteringRule> {
    return this.data('POST', `/filtering-rules/${seg(id)}`, { ...update, id });
  }

  /** `DELETE /filtering-rules/{id}`. */
  async deleteFilteringRule(id: string): Promise<void> {
    await this.http.request('DELETE', `/filtering-rules/${seg(id)}`);
  }

  /** `POST /filtering-rules/test`: evaluates an environment's rules, or given ones, on a sample request. */
  testFilteringRules(body: FilteringRulesTest): Promise<FilteringRulesTestResult> {
    return this.data('POST', '/filtering-rules/test', body);
  }

  // Workspace settings

  /** `GET /workspace/settings`. */
  getWorkspaceSettings(): Promise<WorkspaceSettings> {
    return this.data('GET', '/workspace/settings');
  }

  /** `PATCH /workspace/settings`: only the given fields change. */
  updateWorkspaceSettings(update: WorkspaceSettingsUpdate): Promise<WorkspaceSettings> {
    return this.data('PATCH', '/workspace/settings', update);
  }

  // Encryption keys of sealed results

  /** `GET /encryption-keys`: one page, with the key values. */
  listEncryptionKeys(filter: EncryptionKeyListFilter = {}): Promise<Page<EncryptionKey>> {
    return this.list('/encryption-keys', { ...filter });
  }

  /** Every matching encryption key, across pages. */
  iterateEncryptionKeys(filter: EncryptionKeyListFilter = {}): AsyncGenerator<EncryptionKey> {
    return paginate((cursor) => this.listEncryptionKeys({ ...filter, cursor }), filter.cursor);
  }

  /** `POST /encryption-keys`: enabled unless told otherwise, it seals its environment's results at once. */
  createEncryptionKey(body: EncryptionKeyCreate): Promise<EncryptionKey> {
    return this.data('POST', '/encryption-keys', body);
  }

  /** `GET /encryption-keys/{id}`. */
  getEncryptionKey(id: string): Promise<EncryptionKey> {
    return this.data('GET', `/encryption-keys/${seg(id)}`);
  }

  /** `PATCH /encryption-keys/{id}`: only the given fields change. */
  updateEncryptionKey(id: string, update: EncryptionKeyUpdate): Promise<EncryptionKey> {
    return this.data('PATCH', `/encryption-keys/${seg(id)}`, update);
  }

  /** `POST /encryption-keys/{id}/rotate`: previous_token <- token <- next_token <- a new value. */
  rotateEncryptionKey(id: string): Promise<EncryptionKey> {
    return this.data('POST', `/encryption-keys/${seg(id)}/rotate`);
  }

  /** `DELETE /encryption-keys/{id}`: results sealed with it can no longer be opened with the service's help. */
  async deleteEncryptionKey(id: string): Promise<void> {
    await this.http.request('DELETE', `/encryption-keys/${seg(id)}`);
  }

  // Webhooks

  /** `GET /webhooks`: one page (without signing keys). */
  listWebhooks(filter: WebhookListFilter = {}): Promise<Page<Webhook>> {
    return this.list('/webhooks', { ...filter });
  }

  /** Every matching webhook, across pages. */
  iterateWebhooks(filter: WebhookListFilter = {}): AsyncGenerator<Webhook> {
    return paginate((cursor) => this.listWebhooks({ ...filter, cursor }), filter.cursor);
  }

  /** `POST /webhooks`: the answer carries the `signing_key`, shown this once. Not verified yet. */
  createWebhook(body: WebhookCreate): Promise<CreatedWebhook> {
    return this.data('POST', '/webhooks', body);
  }

  /** `GET /webhooks/{id}`. */
  getWebhook(id: string): Promise<Webhook> {
    return this.data('GET', `/webhooks/${seg(id)}`);
  }

  /** `PATCH /webhooks/{id}`: only the given fields change. */
  updateWebhook(id: string, update: WebhookUpdate): Promise<Webhook> {
    return this.data('PATCH', `/webhooks/${seg(id)}`, update);
  }

  /** `DELETE /webhooks/{id}`: its pending deliveries are dropped. */
  async deleteWebhook(id: string): Promise<void> {
    await this.http.request('DELETE', `/webhooks/${seg(id)}`);
  }

  /** `POST /webhooks/{id}/verification`: a test delivery; `verified` becomes true on a 2xx answer. */
  verifyWebhook(id: string): Promise<WebhookVerification> {
    return this.data('POST', `/webhooks/${seg(id)}/verification`);
  }

  /** `GET /webhooks/{id}/attempts` (extension): the attempt log, newest first. */
  listWebhookAttempts(id: string, query: ListQuery = {}): Promise<Page<WebhookAttempt>> {
    return this.list(`/webhooks/${seg(id)}/attempts`, { ...query });
  }

  /** `POST /webhooks/{id}/deliveries/{delivery_id}/resend` (extension): queues the event again, due now. */
  resendWebhookDelivery(id: string, deliveryId: string): Promise<WebhookDelivery> {
    return this.data('POST', `/webhooks/${seg(id)}/deliveries/${seg(deliveryId)}/resend`);
  }

  /** A one-resource call: the answer's `{data}`, unwrapped. */
  private async data<T>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await this.http.request<{ data: T }>(method, path, {}, body);
    return answer.data;
  }

  /** A list call: the wire list as a `Page`. */
  private async list<T>(path: string, query: Query): Promise<Page<T>> {
    const answer = await this.http.request<ListResponse<T>>('GET', path, query);
    const { next_cursor, prev_cursor } = answer.metadata.pagination;
    return { data: answer.data, nextCursor: next_cursor, prevCursor: prev_cursor };
  }
}
