/**
 * The v4 event of one identification, built from the request, the identification outcome and
 * the counters read from the store. Pure: everything it needs comes in as arguments. Signals
 * the agent did not send leave their fields out.
 */
import type { IdentifyRequest, TagValue } from '../../protocol/index.js';
import type { Sdk, V4Event, Velocity } from '../../events/v4-event.js';
import { detectBot } from './bot-detection.js';
import { detectPrivacySettings, detectTampering, detectVirtualMachine, suspectScore } from './smart-signals.js';
import { parseUserAgent } from './user-agent.js';

export interface EventInput {
  eventId: string;
  now: number;
  request: IdentifyRequest;
  environmentId: string;
  ip: string;
  userAgentHeader?: string;
  identification: {
    visitorId: string;
    visitorFound: boolean;
    confidence: { score: number; version: string; comment?: string };
    firstSeenAt: number;
    lastSeenAt: number;
  };
  velocity?: Velocity;
  replayed: boolean;
}

/** Tags are an object in the event; a primitive tag is wrapped as `{ tag: value }`. */
export function normaliseTags(tags: TagValue | undefined): Record<string, unknown> | undefined {
  if (tags === undefined || tags === null) return undefined;
  if (typeof tags === 'object' && !Array.isArray(tags)) return tags;
  return { tag: tags };
}

function sdkOf(request: IdentifyRequest): Sdk {
  const platform = (['js', 'android', 'ios'] as const).find((p) => p === request.sdk.platform) ?? 'unknown';
  const sdk: Sdk = { platform, version: request.sdk.version };
  if (request.sdk.integrations?.length) sdk.integrations = request.sdk.integrations;
  return sdk;
}

export function buildEvent(input: EventInput): V4Event {
  const { request, identification: id } = input;
  const signals = request.signals;
  const userAgent = input.userAgentHeader || signals.user_agent;

  const event: V4Event = {
    event_id: input.eventId,
    timestamp: input.now,
    environment_id: input.environmentId,
    suspect: false,
    replayed: input.replayed,
    url: request.url,
    ip_address: input.ip,
    sdk: sdkOf(request),
    identification: {
      visitor_id: id.visitorId,
      confidence: id.confidence,
      visitor_found: id.visitorFound,
      first_seen_at: id.firstSeenAt,
      last_seen_at: id.lastSeenAt,
    },
  };
  if (request.linked_id !== undefined) event.linked_id = request.linked_id;
  const tags = normaliseTags(request.tags);
  if (tags) event.tags = tags;
  if (request.referrer) event.client_referrer = request.referrer;

  if (userAgent) {
    const details = parseUserAgent(userAgent);
    event.user_agent = userAgent;
    event.browser_details = details;
    event.device = details.device;
    event.os = details.os;
    event.os_version = details.os_version;
  }

  const bot = detectBot({ signals, userAgent });
  if (bot) Object.assign(event, bot);
  if (signals.incognito) event.incognito = signals.incognito.likely;
  if (signals.developer_tools !== undefined) event.developer_tools = signals.developer_tools;
  const tampering = detectTampering(signals, input.userAgentHeader);
  if (tampering) Object.assign(event, tampering);
  const privacy = detectPrivacySettings(signals);
  if (privacy !== undefined) event.privacy_settings = privacy;
  const vm = detectVirtualMachine(signals);
  if (vm !== undefined) event.virtual_machine = vm;
  if (input.velocity) event.velocity = input.velocity;

  event.suspect_score = suspectScore({
    bot: event.bot,
    tampering: event.tampering,
    replayed: event.replayed,
    virtual_machine: event.virtual_machine,
    developer_tools: event.developer_tools,
    incognito: event.incognito,
    privacy_settings: event.privacy_settings,
    events5Minutes: input.velocity?.events['5_minutes'],
  });
  event.raw_device_attributes = { ...signals };
  return event;
}
